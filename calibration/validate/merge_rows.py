#!/usr/bin/env python3
"""Replaces rows of a prediction file with those of trial files, by configuration id.

`validate run --model-out` writes one row per configuration; a trial of a model change
predicts some or all of them again, often in several runs. This writes the base file with
every row the trials hold replaced (later trial files win), in the base file's row order and
line endings, and refuses trial files whose header differs from the base's or ids the base
does not have.

    python3 calibration/validate/merge_rows.py BASE.csv TRIAL.csv [TRIAL.csv ...] > OUT.csv
    python3 calibration/validate/merge_rows.py --require-all BASE.csv TRIAL.csv ... > OUT.csv

With `--require-all` every row of the base must come from a trial (a whole prediction made
again); the ids missing are listed and nothing is written otherwise.
"""

import argparse
import sys


def read(path):
    with open(path, newline="") as f:
        text = f.read()
    newline = "\r\n" if "\r\n" in text else "\n"
    lines = [line for line in text.split(newline) if line]
    return lines[0], [(line.split(",", 1)[0], line) for line in lines[1:]], newline


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("base", help="the prediction whose rows are replaced")
    p.add_argument("trials", nargs="+", help="files with the replacing rows")
    p.add_argument("--require-all", action="store_true", help="every base row must be replaced")
    a = p.parse_args()
    header, base, newline = read(a.base)
    ids = {i for i, _ in base}
    new = {}
    for path in a.trials:
        h, rows, _ = read(path)
        if h != header:
            sys.exit(f"{path}: its header is not {a.base}'s")
        for i, line in rows:
            if i not in ids:
                sys.exit(f"{path}: configuration {i} is not in {a.base}")
            new[i] = line
    missing = [i for i, _ in base if i not in new]
    if a.require_all and missing:
        sys.exit(f"{len(missing)} rows not in any trial file: {','.join(missing)}")
    out = [header] + [new.get(i, line) for i, line in base]
    sys.stdout.buffer.write((newline.join(out) + newline).encode())
    print(f"{len(new)} of {len(base)} rows replaced", file=sys.stderr)


if __name__ == "__main__":
    main()
