//! Wall-clock time as RFC 3339 in UTC with milliseconds (`2026-11-29T19:45:03.120Z`), as task
//! timestamps and audit lines carry it, without a date crate.

use std::time::{SystemTime, UNIX_EPOCH};

/// Now.
pub(crate) fn now() -> String {
    at(SystemTime::now())
}

/// `time`, to the millisecond.
pub(crate) fn at(time: SystemTime) -> String {
    let millis = match time.duration_since(UNIX_EPOCH) {
        Ok(since) => since.as_millis() as i64,
        Err(before) => -(before.duration().as_millis() as i64),
    };
    format_millis(millis)
}

/// `millis` after the Unix epoch, to the millisecond, in UTC.
fn format_millis(millis: i64) -> String {
    let (days, millis_of_day) = (millis.div_euclid(86_400_000), millis.rem_euclid(86_400_000));
    let (year, month, day) = civil_from_days(days);
    let seconds_of_day = millis_of_day / 1000;
    // Digit by digit: `format!` with widths costs several times as much, once per request.
    let mut out = String::with_capacity(24);
    let mut digits = |value: u32, width: usize, after: char| {
        let mut place = [b'0'; 4];
        let mut rest = value;
        for digit in place[..width].iter_mut().rev() {
            *digit = b'0' + (rest % 10) as u8;
            rest /= 10;
        }
        out.extend(place[..width].iter().map(|&digit| char::from(digit)));
        out.push(after);
    };
    digits(year.clamp(0, 9999) as u32, 4, '-');
    digits(month, 2, '-');
    digits(day, 2, 'T');
    let (seconds, millis) = (seconds_of_day as u32, (millis_of_day % 1000) as u32);
    digits(seconds / 3600, 2, ':');
    digits(seconds / 60 % 60, 2, ':');
    digits(seconds % 60, 2, '.');
    digits(millis, 3, 'Z');
    out
}

/// The proleptic Gregorian date `days` after 1970-01-01 (Howard Hinnant's `civil_from_days`:
/// it counts in 400-year eras, whose calendar repeats, from a year that starts in March so
/// that the leap day comes last).
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let days = days + 719_468;
    let era = days.div_euclid(146_097);
    let day_of_era = days.rem_euclid(146_097);
    let year_of_era =
        (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let month_from_march = (5 * day_of_year + 2) / 153;
    let day = day_of_year - (153 * month_from_march + 2) / 5 + 1;
    let month = if month_from_march < 10 {
        month_from_march + 3
    } else {
        month_from_march - 9
    };
    let year = year_of_era + era * 400 + i64::from(month <= 2);
    (year, month as u32, day as u32)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_and_times_come_out_as_rfc_3339() {
        assert_eq!(format_millis(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(format_millis(1_000_000_000_123), "2001-09-09T01:46:40.123Z");
        // A leap day, the day after it, and a century that is not a leap year.
        assert_eq!(format_millis(951_782_400_000), "2000-02-29T00:00:00.000Z");
        assert_eq!(format_millis(951_868_800_000), "2000-03-01T00:00:00.000Z");
        assert_eq!(format_millis(4_107_542_400_000), "2100-03-01T00:00:00.000Z");
        assert_eq!(format_millis(1_798_246_923_456), "2026-12-26T01:02:03.456Z");
        assert_eq!(format_millis(-1), "1969-12-31T23:59:59.999Z");
    }

    #[test]
    fn instants_come_out_to_the_millisecond() {
        use std::time::Duration;
        let at_ = |seconds: u64, millis: u64| {
            at(UNIX_EPOCH + Duration::from_secs(seconds) + Duration::from_millis(millis))
        };
        assert_eq!(at_(0, 0), "1970-01-01T00:00:00.000Z");
        // `date -u -d @951782400`: the leap day of a year divisible by 400.
        assert_eq!(at_(951_782_400, 5), "2000-02-29T00:00:00.005Z");
        assert_eq!(at_(1_796_067_903, 120), "2026-11-30T19:45:03.120Z");
        assert_eq!(at_(4_107_542_399, 999), "2100-02-28T23:59:59.999Z");
    }

    #[test]
    fn now_has_the_shape_of_the_others() {
        let now = now();
        assert_eq!(now.len(), "2026-12-02T01:02:03.456Z".len());
        assert!(now.ends_with('Z') && now.as_bytes()[10] == b'T');
    }
}
