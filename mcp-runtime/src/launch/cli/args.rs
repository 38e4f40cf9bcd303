//! The command line, read by hand (a few words do not need an argument-parsing crate).
//!
//! Every argument given is the CLI's: a server with flags of its own takes them off first and
//! hands the rest to [`Server::serve_stdio_with_args`](crate::Server::serve_stdio_with_args).

use std::ffi::OsString;
use std::fmt;

use serde_json::Value;

use crate::handler::JsonObject;

/// What the command line asks for.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Command {
    /// `--help`, `-h`, `help`.
    Help,
    /// `--version`, `-V`.
    Version,
    /// `manifest`, `--manifest`.
    Manifest,
    /// `call TOOL [key=value ...]` or `call TOOL --json '{...}'`.
    Call { tool: String, arguments: JsonObject },
    /// `read URI`.
    Read { uri: String },
    /// `prompt NAME [key=value ...]` or `prompt NAME --json '{...}'`.
    Prompt { name: String, arguments: JsonObject },
}

/// A command line that asks for nothing this program does; the text says what was wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct UsageError(pub(crate) String);

impl fmt::Display for UsageError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

fn usage(message: impl Into<String>) -> UsageError {
    UsageError(message.into())
}

/// How `key=value` values are read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Values {
    /// As JSON when the value parses as JSON (`2`, `true`, `[1,2]`, `"quoted"`), else as the
    /// string it is: tool arguments have types.
    JsonOrString,
    /// Always as the string it is: prompt arguments are strings in every revision.
    Strings,
}

/// Read the arguments after the program's name. Empty arguments are not a command (the
/// caller serves instead).
pub(crate) fn parse(args: &[OsString]) -> Result<Command, UsageError> {
    let args: Vec<&str> = args
        .iter()
        .map(|arg| {
            arg.to_str()
                .ok_or_else(|| usage(format!("{} is not valid UTF-8", arg.to_string_lossy())))
        })
        .collect::<Result<_, _>>()?;
    let Some((&first, rest)) = args.split_first() else {
        return Err(usage("no command given"));
    };
    match first {
        "--help" | "-h" | "help" => Ok(Command::Help),
        "--version" | "-V" => nothing_after(first, rest).map(|()| Command::Version),
        "manifest" | "--manifest" => nothing_after(first, rest).map(|()| Command::Manifest),
        "call" => {
            let (tool, arguments) =
                named_with_arguments(first, "TOOL", rest, Values::JsonOrString)?;
            Ok(Command::Call { tool, arguments })
        }
        "prompt" => {
            let (name, arguments) = named_with_arguments(first, "NAME", rest, Values::Strings)?;
            Ok(Command::Prompt { name, arguments })
        }
        "read" => match rest {
            [uri] => Ok(Command::Read {
                uri: (*uri).to_owned(),
            }),
            [] => Err(usage("`read` needs the URI of a resource: read URI")),
            [_, extra, ..] => Err(usage(format!("`read` takes one URI; unexpected `{extra}`"))),
        },
        unknown if unknown.starts_with('-') => Err(usage(format!("unknown option `{unknown}`"))),
        unknown => Err(usage(format!("unknown command `{unknown}`"))),
    }
}

fn nothing_after(command: &str, rest: &[&str]) -> Result<(), UsageError> {
    match rest.first() {
        None => Ok(()),
        Some(extra) => Err(usage(format!(
            "`{command}` takes no arguments; unexpected `{extra}`"
        ))),
    }
}

/// `NAME --json '{...}'` or `NAME key=value ...`.
fn named_with_arguments(
    command: &str,
    placeholder: &str,
    rest: &[&str],
    values: Values,
) -> Result<(String, JsonObject), UsageError> {
    let Some((&name, pairs)) = rest.split_first() else {
        return Err(usage(format!(
            "`{command}` needs a {}: {command} {placeholder} [key=value ...]",
            placeholder.to_lowercase()
        )));
    };
    if name.starts_with('-') {
        return Err(usage(format!(
            "`{command}` needs a {} before `{name}`",
            placeholder.to_lowercase()
        )));
    }
    let arguments = match pairs {
        ["--json", json] => json_object(json)?,
        ["--json"] => return Err(usage("`--json` needs a JSON object: --json '{\"key\": 1}'")),
        ["--json", _, extra, ..] => {
            return Err(usage(format!(
                "`--json` gives every argument; unexpected `{extra}`"
            )));
        }
        pairs => key_values(pairs, values)?,
    };
    Ok((name.to_owned(), arguments))
}

fn json_object(json: &str) -> Result<JsonObject, UsageError> {
    match serde_json::from_str(json) {
        Ok(Value::Object(object)) => Ok(object),
        Ok(_) => Err(usage("`--json` takes a JSON object, like '{\"key\": 1}'")),
        Err(error) => Err(usage(format!("`--json` is not valid JSON: {error}"))),
    }
}

fn key_values(pairs: &[&str], values: Values) -> Result<JsonObject, UsageError> {
    let mut arguments = JsonObject::new();
    for pair in pairs {
        let Some((key, value)) = pair.split_once('=').filter(|(key, _)| !key.is_empty()) else {
            return Err(usage(format!(
                "expected key=value, got `{pair}` (or pass every argument with --json '{{...}}')"
            )));
        };
        let value = match values {
            Values::JsonOrString => {
                serde_json::from_str(value).unwrap_or_else(|_| Value::String(value.to_owned()))
            }
            Values::Strings => Value::String(value.to_owned()),
        };
        if arguments.insert(key.to_owned(), value).is_some() {
            return Err(usage(format!("`{key}` is given twice")));
        }
    }
    Ok(arguments)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn parse_str(args: &[&str]) -> Result<Command, UsageError> {
        let args: Vec<OsString> = args.iter().map(OsString::from).collect();
        parse(&args)
    }

    fn object(value: Value) -> JsonObject {
        match value {
            Value::Object(object) => object,
            _ => unreachable!(),
        }
    }

    fn error(args: &[&str]) -> String {
        parse_str(args).unwrap_err().0
    }

    #[test]
    fn flags_and_words() {
        for help in ["--help", "-h", "help"] {
            assert_eq!(parse_str(&[help]), Ok(Command::Help));
        }
        assert_eq!(parse_str(&["-V"]), Ok(Command::Version));
        assert_eq!(parse_str(&["manifest"]), Ok(Command::Manifest));
        assert_eq!(parse_str(&["--manifest"]), Ok(Command::Manifest));
        assert_eq!(
            parse_str(&["read", "doc://readme"]),
            Ok(Command::Read {
                uri: "doc://readme".into()
            })
        );
    }

    #[test]
    fn tool_values_are_json_when_they_parse_else_strings() {
        let parsed = parse_str(&[
            "call",
            "t",
            "n=2",
            "f=1.5",
            "b=true",
            "list=[1,\"x\"]",
            "s=Paris",
            "q=\"42\"",
            "empty=",
            "eq=a=b",
            "null=null",
        ]);
        let expected = json!({
            "n": 2, "f": 1.5, "b": true, "list": [1, "x"], "s": "Paris", "q": "42",
            "empty": "", "eq": "a=b", "null": null,
        });
        assert_eq!(
            parsed,
            Ok(Command::Call {
                tool: "t".into(),
                arguments: object(expected)
            })
        );
    }

    #[test]
    fn prompt_values_are_always_strings() {
        assert_eq!(
            parse_str(&["prompt", "p", "n=2", "s=x y"]),
            Ok(Command::Prompt {
                name: "p".into(),
                arguments: object(json!({"n": "2", "s": "x y"}))
            })
        );
    }

    #[test]
    fn json_gives_every_argument() {
        assert_eq!(
            parse_str(&["call", "add", "--json", r#"{"a": 1, "b": [2]}"#]),
            Ok(Command::Call {
                tool: "add".into(),
                arguments: object(json!({"a": 1, "b": [2]}))
            })
        );
        assert_eq!(
            parse_str(&["call", "add"]),
            Ok(Command::Call {
                tool: "add".into(),
                arguments: JsonObject::new()
            })
        );
        assert!(error(&["call", "add", "--json", "[1]"]).contains("JSON object"));
        assert!(error(&["call", "add", "--json", "{"]).contains("not valid JSON"));
        assert!(error(&["call", "add", "--json"]).contains("needs a JSON object"));
        assert!(error(&["call", "add", "--json", "{}", "a=1"]).contains("`a=1`"));
    }

    #[test]
    fn mistakes_say_what_is_wrong() {
        assert_eq!(error(&["frobnicate"]), "unknown command `frobnicate`");
        assert_eq!(error(&["--root"]), "unknown option `--root`");
        assert!(error(&["call"]).contains("needs a tool"));
        assert!(error(&["call", "--json", "{}"]).contains("needs a tool before `--json`"));
        assert!(error(&["call", "t", "a"]).contains("expected key=value, got `a`"));
        assert!(error(&["call", "t", "=1"]).contains("expected key=value"));
        assert_eq!(error(&["call", "t", "a=1", "a=2"]), "`a` is given twice");
        assert!(error(&["read"]).contains("needs the URI"));
        assert!(error(&["read", "a", "b"]).contains("unexpected `b`"));
        assert!(error(&["manifest", "x"]).contains("takes no arguments"));
        assert!(error(&["prompt"]).contains("needs a name"));
    }

    #[cfg(unix)]
    #[test]
    fn arguments_must_be_utf8() {
        use std::os::unix::ffi::OsStringExt;
        let args = [OsString::from("call"), OsString::from_vec(vec![0xff])];
        assert!(parse(&args).unwrap_err().0.contains("not valid UTF-8"));
    }
}
