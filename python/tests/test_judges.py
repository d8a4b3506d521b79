"""Judges: the offline judge, a Python callable over the questions-out /
answers-in protocol, and every way a callable can fail (each keeps the step
closed). The toy-orders bundle asks its judge whether the user confirmed."""

from __future__ import annotations

import threading
import time

import pytest

import turnstile


def last_user_turn(question):
    users = [t["event_index"] for t in question["conversation"] if t["role"] == "user"]
    return users[-1]


def scripted_yes(question):
    """A scripted model: the user wants a cancellation, and every criterion
    holds on the user's last turn."""
    if question["question"]["kind"] == "classify":
        first = min(t["event_index"] for t in question["conversation"] if t["role"] == "user")
        return {"verdict": "chosen", "label": "cancel", "evidence_event": first}
    return {"verdict": "satisfied", "evidence_event": last_user_turn(question)}


def satisfied(questions):
    return [scripted_yes(q) for q in questions]


def the_write(session, events):
    (write,) = [v for v in session.push_many(events) if v.mutating]
    return write


def test_the_offline_judge_reads_the_yes(toy, toy_cancel):
    assert the_write(turnstile.Session(toy), toy_cancel["cancel-confirmed"]).decision == "allow"


def test_a_callable_judge_is_asked_and_its_yes_opens_the_step(toy, toy_cancel):
    asked = []

    def judge(questions):
        asked.append(questions)
        return satisfied(questions)

    session = turnstile.Session(toy, judge=judge)
    assert the_write(session, toy_cancel["cancel-confirmed"]).decision == "allow"
    assert asked, "the judge was asked"
    questions = asked[0]
    assert {"node_id", "question", "conversation", "bundle_hash"} <= set(questions[0])
    assert questions[0]["bundle_hash"] == toy.id


def test_a_callable_judge_s_no_keeps_the_step_closed(toy, toy_cancel):
    session = turnstile.Session(toy, judge=lambda qs: [{"verdict": "not_satisfied"} for _ in qs])
    assert the_write(session, toy_cancel["cancel-confirmed"]).decision == "block"


def raises(questions):
    raise RuntimeError("the model is down")


@pytest.mark.parametrize(
    "judge",
    [
        raises,
        lambda qs: "yes",
        lambda qs: None,
        lambda qs: [],
        lambda qs: satisfied(qs) + satisfied(qs),
        lambda qs: [{"verdict": "maybe"} for _ in qs],
        lambda qs: [{"verdict": "satisfied"} for _ in qs],
        lambda qs: [object() for _ in qs],
        lambda qs: [{"verdict": "satisfied", "evidence_event": 10_000} for _ in qs],
    ],
    ids=[
        "raises",
        "text",
        "none",
        "too-few",
        "too-many",
        "unknown-verdict",
        "no-evidence",
        "not-json",
        "evidence-out-of-slice",
    ],
)
def test_a_failing_callable_keeps_the_step_closed(toy, toy_cancel, judge):
    session = turnstile.Session(toy, judge=judge)
    write = the_write(session, toy_cancel["cancel-confirmed"])
    assert write.decision == "block"
    notes = write.to_dict().get("judge", [])
    assert notes, "the report says what the judge answered"


def test_a_hanging_callable_times_out_and_its_late_answer_is_discarded(toy, toy_cancel):
    answered = threading.Event()

    def slow(questions):
        time.sleep(0.5)
        answered.set()
        return satisfied(questions)

    session = turnstile.Session(toy, judge=slow, judge_timeout=0.05)
    write = the_write(session, toy_cancel["cancel-confirmed"])
    assert write.decision == "block"
    state = session.snapshot()
    assert answered.wait(5), "the late answer came"
    assert session.snapshot() == state, "the late answer changed nothing"
    assert "in time" in str(write.to_dict()["judge"])


def test_the_gil_is_released_while_the_engine_works(retail):
    # A Python thread counts while one long push_many runs: it could count
    # only a few steps around the call if the call held the GIL throughout.
    events = []
    for turn in range(1500):
        events.append({"type": "user", "text": f"Where is my order number {turn}?"})
        events.append({"type": "agent", "text": "Let me look that up for you."})
    count = [0]
    stop = threading.Event()

    def spin():
        while not stop.is_set():
            count[0] += 1

    spinner = threading.Thread(target=spin, daemon=True)
    spinner.start()
    try:
        before = count[0]
        turnstile.Session(retail).push_many(events)
        during = count[0] - before
    finally:
        stop.set()
        spinner.join()
    assert during > 1000, f"the counting thread advanced {during} steps"


def test_the_openai_judge_is_configured_from_the_environment_and_fails_closed(toy, toy_cancel, monkeypatch):
    # A fake OpenAI-compatible server on loopback that answers nothing usable:
    # the judge reaches it (URL, model and key from the environment) and its
    # answers are unknown, so the write stays blocked.
    import http.server
    import json as json_module

    seen = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_POST(self):
            body = self.rfile.read(int(self.headers["Content-Length"]))
            seen.append((self.path, self.headers.get("Authorization"), json_module.loads(body)))
            payload = json_module.dumps({"choices": []}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        monkeypatch.setenv("TURNSTILE_JUDGE_URL", f"http://127.0.0.1:{server.server_address[1]}/v1")
        monkeypatch.setenv("TURNSTILE_JUDGE_MODEL", "fake-model")
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
        session = turnstile.Session(toy, judge="openai")
        assert the_write(session, toy_cancel["cancel-confirmed"]).decision == "block"
    finally:
        server.shutdown()
    assert seen, "the judge called the server"
    path, authorization, body = seen[0]
    assert path == "/v1/chat/completions"
    assert authorization == "Bearer sk-test"
    assert body["model"] == "fake-model"
