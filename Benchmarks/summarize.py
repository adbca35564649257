#!/usr/bin/env python3
"""Reads the histograms that `swift package benchmark --format histogramEncoded` wrote and prints
one Markdown table: per scenario the median time per operation for hand-written wiring, Weft and
Swinject, their ratios, heap allocations per operation, and the ratios the targets are about.

Usage: summarize.py DIRECTORY  (run.sh calls it)
"""

import datetime
import json
import os
import platform
import statistics
import subprocess
import sys

LIBRARIES = ["HandWritten", "Weft", "Swinject"]

# scenario: (title, what one operation is, operations per sample).
# The operations per sample must match Size and the scaling factors in Benchmarks/DIBenchmarks.
SCENARIOS = {
    "1-transient": ("1. transient graph", "resolve A(B(C), C)", 1_000),
    "2-graph": ("2. graph scope (C shared)", "resolve A(B(C), C)", 1_000),
    "3-singleton": ("3. container singleton", "resolve built singleton", 1_000),
    "4a-named100": ("4a. named lookup, 100 names", "resolve one name", 1_000),
    "4b-named10000": ("4b. named lookup, 10,000 names", "resolve one name", 1_000),
    "5-register10000": ("5. register 10,000 services", "one registration", 10_000),
    "6-child": ("6. child container + resolve", "new child, resolve from parent", 1_000),
    "7a-threads1": ("7a. 20,000 resolves, 1 thread", "resolve A(B(C), C)", 20_000),
    "7b-threads2": ("7b. 2 x 10,000 resolves, 2 threads", "resolve A(B(C), C)", 20_000),
    "8-async": ("8. async resolve (async factories)", "await A(B(C), C), C shared", 1_000),
    "9-scope": ("9. scope: create, resolve, teardown", "new scope, resolve twice, end", 1_000),
}


def histogram_values(path):
    """[(value, count)] of an HdrHistogram serialized by hdrhistogram-swift's Codable conformance;
    each value is the middle of its bucket (3 significant digits)."""
    with open(path) as file:
        h = json.load(file)
    half_magnitude = h["subBucketHalfCountMagnitude"]
    half_count = 1 << half_magnitude
    unit = h["unitMagnitude"]
    values = []
    for index, count in enumerate(h["counts"]):
        if count == 0:
            continue
        bucket = (index >> half_magnitude) - 1
        sub_bucket = (index & (half_count - 1)) + half_count
        if bucket < 0:
            sub_bucket -= half_count
            bucket = 0
        lowest = sub_bucket << (bucket + unit)
        width = 1 << (bucket + unit)
        values.append((lowest + (width - 1) / 2, count))
    return values


def median(values):
    """The median of [(value, count)]."""
    values = sorted(values)
    total = sum(count for _, count in values)
    if total == 0:
        return None
    wanted = (total + 1) // 2
    seen = 0
    for value, count in values:
        seen += count
        if seen >= wanted:
            return value
    return None


def load(directory):
    """{(scenario, library, metric): {round: [(value, count)]}} from the files that each round (a
    subdirectory) exported, named `<baseline>.<target>.<scenario>_<library>.<metric>.histogram.json`."""
    results = {}
    for round_name in sorted(os.listdir(directory)):
        round_directory = os.path.join(directory, round_name)
        if not os.path.isdir(round_directory):
            continue
        for name in os.listdir(round_directory):
            if not name.endswith(".histogram.json"):
                continue
            parts = name[: -len(".histogram.json")].split(".")
            if len(parts) < 4:
                continue
            benchmark, metric = parts[-2], parts[-1]
            scenario, _, library = benchmark.rpartition("_")
            if scenario in SCENARIOS and library in LIBRARIES:
                values = histogram_values(os.path.join(round_directory, name))
                results.setdefault((scenario, library, metric), {})[round_name] = values
    return results


def per_op(results, scenario, library, metric, round_name=None):
    """The median per operation in one round, or the median of the rounds' medians."""
    rounds = results.get((scenario, library, metric), {})
    if round_name is None:
        return middle([per_op(results, scenario, library, metric, name) for name in rounds])
    value = median(rounds.get(round_name, []))
    return None if value is None else value / SCENARIOS[scenario][2]


def middle(values):
    """The median of the known values, or None."""
    values = [value for value in values if value is not None]
    return statistics.median(values) if values else None


def ratio(numerator, denominator):
    if numerator is None or denominator is None or denominator == 0:
        return None
    return numerator / denominator


def time_text(ns):
    if ns is None:
        return "–"
    if ns >= 100_000:
        return f"{ns / 1000:,.0f} µs"
    if ns >= 10_000:
        return f"{ns / 1000:.1f} µs"
    if ns >= 100:
        return f"{ns:,.0f} ns"
    if ns >= 10:
        return f"{ns:.1f} ns"
    return f"{ns:.2f} ns"


def ratio_text(value):
    return "–" if value is None else f"{value:.2f}x"


def count_text(value):
    if value is None:
        return "–"
    text = f"{value:.2f}".rstrip("0").rstrip(".")
    return "0" if text in ("", "-0") else text


def weft_revision(directory):
    """The `git describe` of the Weft working tree that run.sh measured, if it recorded one."""
    try:
        with open(os.path.join(directory, "weft-revision.txt")) as file:
            return file.read().strip() or None
    except OSError:
        return None


def machine():
    cpu = "unknown CPU"
    try:
        with open("/proc/cpuinfo") as file:
            for line in file:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        cpu = platform.processor() or cpu
    try:
        swift = subprocess.run(["swift", "--version"], capture_output=True, text=True).stdout
        swift = swift.strip().splitlines()[0]
    except (OSError, IndexError):
        swift = "swift"
    date = datetime.datetime.now().astimezone().strftime("%Y-%m-%d %H:%M %Z")
    return f"{date} · {platform.machine()} · {os.cpu_count()} cores · {cpu} · {swift}"


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    results = load(sys.argv[1])
    if not results:
        sys.exit(f"no benchmark histograms in {sys.argv[1]}")
    time_rounds = sorted({r for (_, _, metric), rounds in results.items() if metric == "wallClock" for r in rounds})

    def time(round_name=None):
        return lambda scenario, library: per_op(results, scenario, library, "wallClock", round_name)

    def allocs(scenario, library):
        return per_op(results, scenario, library, "mallocCountTotal")

    def container_allocs(scenario, library="Weft"):
        container, hand = allocs(scenario, library), allocs(scenario, "HandWritten")
        return None if container is None or hand is None else container - hand

    def time_ratio(numerator, denominator):
        """(median over the rounds, [each round]) of time(numerator) / time(denominator) within a
        round: the libraries of a scenario run seconds apart, so a round's ratio stays fair when the
        machine's load changes between rounds."""
        each = [ratio(time(r)(*numerator), time(r)(*denominator)) for r in time_rounds]
        return middle(each), each

    def gain(library):
        return time_ratio(("7a-threads1", library), ("7b-threads2", library))

    def judged(label, measured, target=None, met=None):
        """`label: value (target …: met) rounds …` for a (value, [each round]) ratio."""
        value, each = measured
        text = f"{label}: {ratio_text(value)}"
        if met is not None and value is not None:
            text += f" (target {target}: {'met' if met(value) else '**missed**'})"
        return text + " rounds " + " ".join("–" if v is None else f"{v:.2f}" for v in each)

    def judged_ratio(label, numerator, denominator, target=None, met=None):
        return judged(label, time_ratio(numerator, denominator), target, met)

    def judged_count(label, value, target, met):
        text = f"{label}: {count_text(value)}"
        if value is not None:
            text += f" (target {target}: {'met' if met(value) else '**missed**'})"
        return text

    targets = {
        "1-transient": [
            judged_ratio("Weft / hand", ("1-transient", "Weft"), ("1-transient", "HandWritten"),
                         "≤ 2.0x", lambda v: v <= 2.0),
            judged_count("Weft's own allocations per resolve", container_allocs("1-transient"),
                         "0", lambda v: v <= 0.01),
            f"Swinject's: {count_text(container_allocs('1-transient', 'Swinject'))}",
        ],
        "2-graph": [
            judged_ratio("Weft / hand", ("2-graph", "Weft"), ("2-graph", "HandWritten"),
                         "≤ 2.5x", lambda v: v <= 2.5),
            judged_count("Weft's own allocations per resolve", container_allocs("2-graph"),
                         "≤ 1", lambda v: v <= 1.01),
            f"Swinject's: {count_text(container_allocs('2-graph', 'Swinject'))}",
        ],
        "3-singleton": [
            judged_ratio("Swinject / Weft", ("3-singleton", "Swinject"), ("3-singleton", "Weft"),
                         "≥ 30x", lambda v: v >= 30),
        ],
        "4b-named10000": [
            judged_ratio("10,000 names / 100 names, Weft", ("4b-named10000", "Weft"), ("4a-named100", "Weft"),
                         "≤ 1.2x", lambda v: v <= 1.2),
            judged_ratio("Swinject", ("4b-named10000", "Swinject"), ("4a-named100", "Swinject")),
        ],
        "5-register10000": [
            judged_ratio("Swinject / Weft", ("5-register10000", "Swinject"), ("5-register10000", "Weft"),
                         "≥ 4x", lambda v: v >= 4),
        ],
        "7b-threads2": [
            judged("Throughput gain of two threads over one (7a / 7b), Weft", gain("Weft"), "≥ 1.7x",
                   lambda v: v >= 1.7),
            judged("Swinject (synchronize()d)", gain("Swinject")),
            judged("hand-written (shows how free the second core was)", gain("HandWritten")),
        ],
    }

    revision = weft_revision(sys.argv[1])
    print(f"Machine: {machine()}" + (f" · Weft {revision}" if revision else ""))
    print()
    print(
        f"Time per operation: the median over {len(time_rounds)} rounds of each round's median (wall clock). "
        "Ratios: the median over the rounds of each round's ratio (the rounds' values follow). "
        "Allocations: malloc calls per operation, counted in a separate pass."
    )
    print()
    print(
        "| Scenario | Operation | Hand-written | Weft | Swinject | Weft / hand | Swinject / Weft "
        "| Allocs hand / Weft / Swinject | Targets and special ratios |"
    )
    print("|---|---|--:|--:|--:|--:|--:|--:|---|")
    t = time()
    for scenario, (title, operation, _) in SCENARIOS.items():
        hand, weft, swinject = (t(scenario, library) for library in LIBRARIES)
        alloc = " / ".join(count_text(allocs(scenario, library)) for library in LIBRARIES)
        weft_hand = time_ratio((scenario, "Weft"), (scenario, "HandWritten"))[0]
        swinject_weft = time_ratio((scenario, "Swinject"), (scenario, "Weft"))[0]
        notes = "; ".join(targets.get(scenario, []))
        print(
            f"| {title} | {operation} | {time_text(hand)} | {time_text(weft)} | {time_text(swinject)} "
            f"| {ratio_text(weft_hand)} | {ratio_text(swinject_weft)} | {alloc} | {notes} |"
        )


if __name__ == "__main__":
    main()
