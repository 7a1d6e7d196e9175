"""The Chrome trace of an NPU timeline: one process per core, one thread per pipe, one
complete event per span, in microseconds, and the same bytes for the same timeline."""

import json
from collections import defaultdict

import numpy as np
import pytest

from tinycomp.targets.npu_sim.chrome_trace import chrome_trace, write_chrome_trace
from tinycomp.targets.npu_sim.timeline import PIPES, Span, Timeline

CLOCK = 1.8

SPANS = (
    Span("AIC 0", "MTE2", "copy GM->L1", "dma", 0.0, 900.0, line=3, detail="65536 B"),
    Span("AIV 0.0", "MTE2", "copy GM->UB", "dma", 0.0, 756.0, line=10),
    Span("AIV 0.0", "V", "wait_flag MTE2->V #0", "wait", 1.0, 756.0, line=11),
    Span("AIV 0.0", "S", "set_flag V->MTE3 #0", "flag", 2.0, 3.0, line=13),
    Span("AIC 0", "M", "wait_flag MTE1->M #1", "wait", 0.0, 1100.0),
    Span("AIV 0.0", "V", "vadd", "vector", 756.0, 1016.0, line=12, detail="128 repeats"),
    Span("AIC 0", "MTE1", "load L1->L0A", "dma", 900.0, 1100.0, line=4),
    Span("AIC 0", "M", "mmad", "cube", 1100.0, 1612.0, line=5, detail="64x64x64"),
    Span("AIV 0.0", "MTE3", "copy UB->GM", "dma", 1016.0, 1500.0, line=14),
)
TIMELINE = Timeline(CLOCK, SPANS)

REQUIRED = {
    "M": {"ph", "name", "pid", "tid", "args"},
    "X": {"ph", "name", "pid", "tid", "ts", "dur", "cat", "args"},
}


def complete(trace):
    return [event for event in trace["traceEvents"] if event["ph"] == "X"]


def metadata(trace, name):
    """``{(pid, tid): args["name"] or args["sort_index"]}`` of one kind of metadata."""
    found = {}
    for event in trace["traceEvents"]:
        if event["ph"] == "M" and event["name"] == name:
            key = (event["pid"], event["tid"])
            assert key not in found, f"{name} twice for {key}"
            found[key] = event["args"].get("name", event["args"].get("sort_index"))
    return found


def test_the_written_file_loads_and_every_event_has_its_fields(tmp_path):
    path = write_chrome_trace(TIMELINE, tmp_path / "trace.json")
    assert path == tmp_path / "trace.json"
    trace = json.loads(path.read_text(encoding="utf-8"))
    assert trace == json.loads(json.dumps(chrome_trace(TIMELINE)))
    assert trace["displayTimeUnit"] == "ns"
    assert trace["otherData"]["clock_ghz"] == CLOCK and trace["otherData"]["cycles"] == 1612
    phases = [event["ph"] for event in trace["traceEvents"]]
    assert set(phases) == {"M", "X"}
    assert phases == sorted(phases)  # the metadata first, then the spans
    for event in trace["traceEvents"]:
        assert REQUIRED[event["ph"]] <= set(event), event
        assert isinstance(event["pid"], int) and isinstance(event["tid"], int)
    assert len(complete(trace)) == len(SPANS)


def test_one_process_per_core_in_core_order_and_one_thread_per_pipe():
    trace = chrome_trace(TIMELINE)
    assert metadata(trace, "process_name") == {(0, 0): "AIC 0", (1, 0): "AIV 0.0"}
    assert metadata(trace, "process_sort_index") == {(0, 0): 0, (1, 0): 1}
    threads = metadata(trace, "thread_name")
    assert threads == {
        (0, 1): "MTE2", (0, 2): "MTE1", (0, 3): "M",
        (1, 0): "S", (1, 1): "MTE2", (1, 5): "V", (1, 6): "MTE3",
    }  # fmt: skip
    assert all(PIPES[tid] == pipe for (_, tid), pipe in threads.items())
    assert metadata(trace, "thread_sort_index") == {key: key[1] for key in threads}
    pid_of = {name: pid for (pid, _), name in metadata(trace, "process_name").items()}
    by_name = {event["name"]: event for event in complete(trace)}
    for span in SPANS:
        event = by_name[span.name]
        assert (event["pid"], event["tid"]) == (pid_of[span.core], PIPES.index(span.pipe))
        assert threads[event["pid"], event["tid"]] == span.pipe


def test_times_are_cycles_over_the_clock_in_microseconds():
    by_name = {event["name"]: event for event in complete(chrome_trace(TIMELINE))}
    for span in SPANS:
        event = by_name[span.name]
        assert event["ts"] == pytest.approx(span.start / CLOCK / 1000)
        assert event["dur"] == pytest.approx(span.cycles / CLOCK / 1000)
        assert event["cat"] == span.kind
        assert event["args"] == {
            "cycles": span.cycles,
            "start_cycle": span.start,
            "line": span.line,
            "detail": span.detail,
        }
    assert by_name["mmad"]["dur"] == pytest.approx(512 / 1800)  # 512 cycles at 1.8 GHz
    assert by_name["wait_flag MTE2->V #0"]["cat"] == "wait"


def test_the_order_is_time_then_core_then_pipe_whatever_order_the_spans_came_in(tmp_path):
    events = complete(chrome_trace(TIMELINE))
    keys = [(event["ts"], event["pid"], event["tid"]) for event in events]
    assert keys == sorted(keys)
    assert [event["name"] for event in events[:3]] == [
        "copy GM->L1", "wait_flag MTE1->M #1", "copy GM->UB"
    ]  # fmt: skip
    rng = np.random.default_rng(5)
    first = write_chrome_trace(TIMELINE, tmp_path / "first.json").read_bytes()
    for turn in range(3):
        shuffled = Timeline(CLOCK, tuple(SPANS[i] for i in rng.permutation(len(SPANS))))
        again = write_chrome_trace(shuffled, tmp_path / f"again{turn}.json").read_bytes()
        assert again == first
    assert first.endswith(b"\n") and first.count(b"\n") == 1


def test_random_timelines_keep_every_cycle_on_its_track():
    rng = np.random.default_rng(11)
    cores = ["AIC 0", "AIV 0.0", "AIV 0.1", "AIC 1", "AIV 1.0", "AIV 1.1"]
    kinds = ["dma", "vector", "cube", "scalar", "flag", "wait"]
    spans = []
    for _ in range(200):
        start = float(rng.integers(0, 10_000))
        end = start + float(rng.integers(0, 900))
        core, pipe, kind = (str(rng.choice(names)) for names in (cores, PIPES, kinds))
        spans.append(Span(core, pipe, "op", kind, start, end))
    timeline = Timeline(1.25, tuple(spans))
    trace = chrome_trace(timeline)
    names = metadata(trace, "process_name")
    assert [names[pid, 0] for pid in range(len(names))] == list(timeline.cores)
    per_track = defaultdict(float)
    for event in complete(trace):
        per_track[event["pid"], event["tid"]] += event["dur"]
    assert set(per_track) == set(metadata(trace, "thread_name"))
    for (pid, tid), microseconds in per_track.items():
        core, pipe = names[pid, 0], PIPES[tid]
        cycles = timeline.busy_cycles(core, pipe) + timeline.waiting_cycles(core, pipe)
        assert microseconds == pytest.approx(cycles / 1.25 / 1000)


def test_an_empty_timeline_and_bad_input():
    assert chrome_trace(Timeline(1.0, ()))["traceEvents"] == []
    with pytest.raises(ValueError, match="expected a pipe in .*got 'VEC'"):
        chrome_trace(Timeline(1.0, (Span("AIV 0.0", "VEC", "vadd", "vector", 0.0, 8.0),)))
    with pytest.raises(ValueError, match="positive clock in GHz, got 0"):
        chrome_trace(Timeline(0.0, SPANS))
