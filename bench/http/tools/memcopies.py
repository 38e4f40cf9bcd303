"""The copies counted by memcopies.c, per request and per call site, with the function and line
each was made from (addr2line, from the binary's debug info: build it with
CARGO_PROFILE_RELEASE_DEBUG=line-tables-only CARGO_PROFILE_RELEASE_STRIP=false).

    python3 memcopies.py COUNTS MAPS REQUESTS [SITES]
"""

import subprocess
import sys


def segments(path):
    """The binary's loaded segments: (file offset, virtual address, size)."""
    out = subprocess.run(["readelf", "-lW", path], capture_output=True, text=True).stdout
    found = []
    for line in out.splitlines():
        fields = line.split()
        if fields and fields[0] == "LOAD":
            found.append((int(fields[1], 16), int(fields[2], 16), int(fields[4], 16)))
    return found


def main():
    counts, maps, requests = sys.argv[1], sys.argv[2], float(sys.argv[3])
    shown = int(sys.argv[4]) if len(sys.argv) > 4 else 30
    mappings = []
    for line in open(maps):
        fields = line.split()
        if len(fields) >= 6:
            low, high = (int(part, 16) for part in fields[0].split("-"))
            mappings.append((low, high, int(fields[2], 16), fields[5]))
    rows = []
    for line in open(counts):
        site, calls, copied = line.split()
        site = int(site, 16)
        for low, high, offset, path in mappings:
            if low <= site < high:
                rows.append((int(copied) / requests, int(calls) / requests, path, site - low + offset))
                break
    rows.sort(reverse=True)
    print(f"{sum(r[0] for r in rows):.0f} bytes in {sum(r[1] for r in rows):.1f} copies per request")
    cache = {}
    for per_request, calls, path, file_offset in rows[:shown]:
        if path not in cache:
            cache[path] = segments(path) if path.startswith("/") else []
        address = file_offset
        for offset, virtual, size in cache[path]:
            if offset <= file_offset < offset + size:
                address = file_offset - offset + virtual
        out = subprocess.run(
            ["addr2line", "-f", "-C", "-i", "-e", path, hex(address - 1)],
            capture_output=True,
            text=True,
        ).stdout.splitlines()
        frames = " <- ".join(name[:70] for name in out[0::2][:3]) or path
        where = out[1].split("/")[-1] if len(out) > 1 else ""
        print(f"{per_request:7.0f} B {calls:4.1f} x  {frames}  [{where}]")


if __name__ == "__main__":
    main()
