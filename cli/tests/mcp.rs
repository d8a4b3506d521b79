//! End-to-end tests of `turnstile mcp` with real MCP parts and no mock of
//! the protocol: the retail tools served by an MCP server of the official
//! Python SDK over the vendored database, the gateway in front of it over
//! stdio and streamable HTTP, and clients of the official Python and Rust
//! SDKs. The server logs every call that reaches it, so a refused call is
//! shown never to have arrived.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

mod common;
#[path = "mcp/harness.rs"]
mod harness;

use harness::{Answer, Answering, Gateway, World, free_port, rmcp_http, rmcp_stdio, rmcp_steps};
use serde_json::{Value, json};

const ORDER: &str = "#W2974929";
const EMAIL: &str = "fatima.anderson1447@example.com";
const USER: &str = "fatima_anderson_2157";

/// The user asks, through the side channel, to cancel the order.
fn opening() -> Value {
    json!({ "tell": [{ "type": "user", "text": format!(
        "Hi, I'd like to cancel my order {ORDER}, I no longer need it. My email is {EMAIL}."
    ) }] })
}

/// The reads the retail policy asks for before a cancellation.
fn reads() -> Vec<Value> {
    vec![
        json!({ "call": "find_user_id_by_email", "args": { "email": EMAIL } }),
        json!({ "call": "get_user_details", "args": { "user_id": USER } }),
        json!({ "call": "get_order_details", "args": { "order_id": ORDER } }),
    ]
}

/// The agent's summary and question, through the side channel.
fn summary() -> Value {
    json!({ "tell": [{ "type": "agent", "text": format!(
        "Order {ORDER} is pending: one Skateboard for $182.03, paid with PayPal, which will be refunded. \
         Do you want me to cancel order {ORDER} because it is no longer needed? Please confirm (yes/no)."
    ) }] })
}

fn yes() -> Value {
    json!({ "tell": [{ "type": "user", "text": "Yes, please cancel it." }] })
}

fn cancel() -> Value {
    json!({ "call": "cancel_pending_order", "args": { "order_id": ORDER, "reason": "no longer needed" } })
}

/// The answers to the call steps, in order (tell, list and elicitation
/// lines left out).
fn calls(lines: &[Value]) -> Vec<&Value> {
    lines.iter().filter(|l| l.get("error").is_some()).collect()
}

/// The whole conversation of a consented cancellation.
fn consented_cancellation() -> Vec<Value> {
    let mut steps = vec![opening()];
    steps.extend(reads());
    steps.extend([summary(), yes(), cancel()]);
    steps
}

/// Checks that the cancellation ran: every call answered without error,
/// the last with the cancelled order, and each reached the server.
fn assert_cancelled(world: &World, lines: &[Value]) {
    let answers = calls(lines);
    assert_eq!(answers.len(), 4, "{lines:#?}");
    for answer in &answers {
        assert_eq!(answer["error"], false, "{answer:#}");
    }
    let order: Value = serde_json::from_str(answers[3]["text"].as_str().unwrap()).unwrap();
    assert_eq!(order["status"], "cancelled");
    assert_eq!(
        world.arrived(),
        [
            "find_user_id_by_email",
            "get_user_details",
            "get_order_details",
            "cancel_pending_order"
        ]
    );
    for told in lines.iter().filter(|l| l.get("told").is_some()) {
        assert_eq!(told["status"], 200, "{told:#}");
        assert!(!told["told"][0]["verdict"].as_str().unwrap().is_empty());
    }
}

#[test]
fn tools_list_shows_the_tools_the_bundle_declares() {
    let Some(world) = World::new() else { return };
    let side = free_port();
    let gateway = Gateway::Stdio {
        command: world.stdio_gateway(side, &[]),
        session: "default".into(),
    };
    let lines = world.python_steps(
        &gateway,
        side,
        &[json!({ "list": true })],
        Answer::Unsupported,
    );
    let tools = lines[0]["tools"].as_array().unwrap();
    assert_eq!(tools.len(), 16, "the sixteen retail tools: {tools:?}");
    assert!(tools.contains(&json!("cancel_pending_order")));
    assert!(
        !tools.contains(&json!("get_store_hours")),
        "undeclared: hidden"
    );
    assert!(world.arrived().is_empty(), "listing calls no tool");
}

#[tokio::test(flavor = "multi_thread")]
async fn pass_undeclared_lists_and_runs_the_other_tools_ungated() {
    let Some(world) = World::new() else { return };
    let side = free_port();
    let command = world.stdio_gateway(side, &["--pass-undeclared", "--session", "open"]);
    let (client, _) = rmcp_stdio(&command, Answering::new(Answer::Unsupported)).await;
    let steps = [
        json!({ "list": true }),
        json!({ "call": "get_store_hours", "args": {} }),
    ];
    let lines = rmcp_steps(&client, side, &|| "open".into(), &steps).await;
    assert_eq!(lines[0]["tools"].as_array().unwrap().len(), 17);
    assert_eq!(lines[1]["error"], false, "{:#}", lines[1]);
    assert!(lines[1]["text"].as_str().unwrap().contains("weekdays"));
    assert_eq!(world.arrived(), ["get_store_hours"]);
    client.cancel().await.unwrap();
    assert!(
        world.stored_verdicts("open").is_empty(),
        "an undeclared tool passed through is not an event of the conversation"
    );
}

#[test]
fn a_hidden_tool_called_anyway_is_refused_and_never_arrives() {
    let Some(world) = World::new() else { return };
    let side = free_port();
    let gateway = Gateway::Stdio {
        command: world.stdio_gateway(side, &[]),
        session: "default".into(),
    };
    let steps = [json!({ "call": "get_store_hours", "args": {} })];
    let lines = world.python_steps(&gateway, side, &steps, Answer::Unsupported);
    assert_eq!(lines[0]["error"], true);
    assert_eq!(lines[0]["verdict"]["reason"], "UnknownTool");
    assert!(world.arrived().is_empty());
}

/// A write with none of its reads, over both transports: refused with the
/// remediation, recorded as a block, and absent from the server's log.
#[test]
fn a_write_without_its_reads_is_refused_with_the_remediation_and_never_arrives() {
    for http in [false, true] {
        let Some(world) = World::new() else { return };
        let side = free_port();
        let served;
        let gateway = if http {
            served = world.http_gateway(0, side, None, &[]);
            Gateway::Url(served.url.clone())
        } else {
            Gateway::Stdio {
                command: world.stdio_gateway(side, &[]),
                session: "default".into(),
            }
        };
        let lines = world.python_steps(&gateway, side, &[cancel()], Answer::Unsupported);
        let answer = &lines[0];
        assert_eq!(answer["error"], true, "{answer:#}");
        let verdict = &answer["verdict"];
        assert_eq!(verdict["verdict"], "block");
        assert_eq!(verdict["reason"], "MissingRead");
        assert_eq!(
            answer["text"], verdict["remediation"],
            "the text is the remediation"
        );
        assert!(
            answer["text"]
                .as_str()
                .unwrap()
                .contains("find_user_id_by_email"),
            "{answer:#}"
        );
        assert!(
            world.arrived().is_empty(),
            "the refused call never reached the server"
        );
        let session = if http {
            world.stored_session()
        } else {
            "default".into()
        };
        let stored = world.stored_verdicts(&session);
        assert_eq!(stored.len(), 1);
        assert_eq!(stored[0]["verdict"], "block");
    }
}

/// Runs `steps` with one client (`python`: the Python SDK's, else rmcp's)
/// over one transport (`http`: the gateway listening, in front of the
/// server over HTTP with `--upstream`; else stdio, conversation `s1`),
/// answering elicitations with `answer`. Its lines, and the conversation's
/// id.
async fn run_client(
    world: &World,
    python: bool,
    http: bool,
    steps: &[Value],
    answer: Answer,
) -> (Vec<Value>, String) {
    let side = free_port();
    if http {
        let server = world.http_server();
        let gateway = world.http_gateway(0, side, Some(&server.url), &[]);
        let lines = if python {
            let gateway = Gateway::Url(gateway.url.clone());
            tokio::task::block_in_place(|| world.python_steps(&gateway, side, steps, answer))
        } else {
            let client = rmcp_http(&gateway.url, Answering::new(answer)).await;
            let lines = rmcp_steps(&client, side, &|| world.live_http_session(), steps).await;
            client.cancel().await.unwrap();
            lines
        };
        (lines, world.stored_session())
    } else {
        let command = world.stdio_gateway(side, &["--session", "s1"]);
        let lines = if python {
            let gateway = Gateway::Stdio {
                command,
                session: "s1".into(),
            };
            tokio::task::block_in_place(|| world.python_steps(&gateway, side, steps, answer))
        } else {
            let (client, _) = rmcp_stdio(&command, Answering::new(answer)).await;
            let lines = rmcp_steps(&client, side, &|| "s1".into(), steps).await;
            client.cancel().await.unwrap();
            lines
        };
        (lines, "s1".into())
    }
}

/// The kinds of the verdicts the store holds for conversation `id`.
fn stored_kinds(world: &World, id: &str) -> Vec<String> {
    world
        .stored_verdicts(id)
        .iter()
        .map(|v| v["verdict"].as_str().unwrap().to_owned())
        .collect()
}

/// The host posts the user's and the agent's words through the side
/// channel; with the reads done and the user's yes, the cancellation runs.
/// Both clients, both transports.
#[tokio::test(flavor = "multi_thread")]
async fn the_users_words_through_the_side_channel_let_the_write_run() {
    for python in [true, false] {
        for http in [false, true] {
            let Some(world) = World::new() else { return };
            let steps = consented_cancellation();
            let (lines, session) = run_client(&world, python, http, &steps, Answer::Accept).await;
            assert_cancelled(&world, &lines);
            assert!(
                lines.iter().all(|l| l.get("elicitation").is_none()),
                "the user's yes in words needs no elicitation: {lines:#?}"
            );
            assert_eq!(
                stored_kinds(&world, &session),
                [
                    "observe", "guide", "observe", "guide", "observe", "guide", "observe", "guide",
                    "observe", "allow", "observe"
                ],
                "python {python}, http {http}"
            );
        }
    }
}

/// The user asks to cancel without giving any identity in words.
fn anonymous_opening() -> Value {
    json!({ "tell": [{ "type": "user", "text": format!(
        "Hi, I'd like to cancel my order {ORDER}, I no longer need it."
    ) }] })
}

/// The host authenticated the user itself: their id and email, through the
/// side channel.
fn principal() -> Value {
    json!({ "tell": [{ "type": "principal", "id": USER, "claims": { "email": EMAIL } }] })
}

/// The host's `principal` identifies the user where the bundle counts it
/// (`host_principal: true`): the email lookup is the user's words, so the
/// protected reads and the consented cancellation run. Without it (or with
/// the shipped bundle, which does not count it), the user never gave an
/// email: identification fails, and the account read is refused before it
/// reaches the server.
#[tokio::test(flavor = "multi_thread")]
async fn the_hosts_principal_identifies_the_user_where_the_bundle_counts_it() {
    let conversation = |with_principal: bool| {
        let mut steps = vec![anonymous_opening()];
        if with_principal {
            steps.push(principal());
        }
        steps.extend(reads());
        steps.extend([summary(), yes(), cancel()]);
        steps
    };
    // Counted: the whole cancellation runs.
    let Some(world) = World::new() else { return };
    let world = world.host_principal();
    let (lines, _) = run_client(&world, false, false, &conversation(true), Answer::Accept).await;
    assert_cancelled(&world, &lines);

    // No principal, or one the shipped bundle does not count: nothing past
    // the lookup reaches the server.
    for (counted, with_principal) in [(true, false), (false, true)] {
        let Some(world) = World::new() else { return };
        let world = if counted {
            world.host_principal()
        } else {
            world
        };
        let steps = conversation(with_principal);
        let (lines, _) = run_client(&world, false, false, &steps, Answer::Accept).await;
        let answers = calls(&lines);
        assert_eq!(answers.len(), 4, "{lines:#?}");
        assert_eq!(answers[1]["error"], true, "the account read: {lines:#?}");
        assert_eq!(answers[3]["error"], true, "the cancellation: {lines:#?}");
        assert_eq!(world.arrived(), ["find_user_id_by_email"], "{lines:#?}");
    }
}

/// The reads done and the agent's question asked, the user has not
/// answered in words: the cancellation lacks only the user's consent.
fn unanswered_cancellation() -> Vec<Value> {
    let mut steps = vec![opening()];
    steps.extend(reads());
    steps.extend([summary(), cancel()]);
    steps
}

/// The id the gateway gives the cancellation of [`unanswered_cancellation`]:
/// its index among the conversation's events.
const HELD_CALL: &str = "mcp-8";

/// The confirmation the store holds for the held cancellation, checked to
/// be the canonical one of the retail bundle's template.
fn held_confirmation(world: &World, session: &str) -> Value {
    let stored = world.stored_verdicts(session);
    let confirm = &stored[8];
    assert_eq!(confirm["verdict"], "confirm", "{stored:#?}");
    let confirmation = confirm["confirmation"].clone();
    assert_eq!(confirmation["call"], HELD_CALL);
    assert_eq!(confirmation["tool"], "cancel_pending_order");
    assert!(
        confirmation["text"].as_str().unwrap().contains(ORDER),
        "{confirmation:#}"
    );
    confirmation
}

/// A write that lacks only the user's consent is asked of the user by
/// `elicitation/create` (the confirmation's text, an empty schema); the
/// user's accept is recorded as an approval by the user and the identical
/// call then runs. Both clients, both transports.
#[tokio::test(flavor = "multi_thread")]
async fn accepting_the_elicitation_records_the_approval_and_runs_the_write() {
    for python in [true, false] {
        for http in [false, true] {
            let Some(world) = World::new() else { return };
            let steps = unanswered_cancellation();
            let (lines, session) = run_client(&world, python, http, &steps, Answer::Accept).await;
            assert_cancelled(&world, &lines);
            let confirmation = held_confirmation(&world, &session);
            let asked: Vec<&Value> = lines
                .iter()
                .filter(|l| l.get("elicitation").is_some())
                .collect();
            assert_eq!(asked.len(), 1, "one question: {lines:#?}");
            assert_eq!(asked[0]["elicitation"], confirmation["text"]);
            assert_eq!(
                asked[0]["schema"],
                json!({ "type": "object", "properties": {} }),
                "an empty requested schema"
            );
            let stored = world.stored_verdicts(&session);
            let kinds = stored_kinds(&world, &session);
            assert_eq!(
                kinds[8..],
                ["confirm", "observe", "allow", "observe"],
                "python {python}, http {http}: {stored:#?}"
            );
            assert_eq!(
                stored[10]["approved"],
                json!({ "by": "user", "call": HELD_CALL }),
                "the call ran on the user's approval"
            );
        }
    }
}

/// Declining or dismissing the elicitation is a refusal: recorded as an
/// approval not granted, the call refused with a tool error saying so, and
/// it never reaches the server; called again, it stays refused. Each
/// answer with each client, over one transport each.
#[tokio::test(flavor = "multi_thread")]
async fn declining_or_dismissing_the_elicitation_refuses_the_write() {
    for (python, http, answer, said) in [
        (true, false, Answer::Decline, "declined"),
        (false, true, Answer::Decline, "declined"),
        (true, true, Answer::Cancel, "dismissed"),
        (false, false, Answer::Cancel, "dismissed"),
    ] {
        let Some(world) = World::new() else { return };
        let mut steps = unanswered_cancellation();
        steps.push(cancel());
        let (lines, session) = run_client(&world, python, http, &steps, answer).await;
        let answers = calls(&lines);
        let refused = answers[3];
        assert_eq!(refused["error"], true, "{refused:#}");
        let text = refused["text"].as_str().unwrap();
        assert!(text.contains(said), "{text}");
        let confirmation = held_confirmation(&world, &session);
        assert!(
            text.contains(confirmation["text"].as_str().unwrap()),
            "{text}"
        );
        assert_eq!(answers[4]["error"], true, "an identical call stays refused");
        assert!(
            !world.arrived().contains(&"cancel_pending_order".to_owned()),
            "python {python}, http {http}: {:?}",
            world.arrived()
        );
        let kinds = stored_kinds(&world, &session);
        assert_eq!(kinds[8..10], ["confirm", "observe"], "{kinds:?}");
        assert!(!kinds.contains(&"allow".to_owned()), "{kinds:?}");
    }
}

/// A client that does not advertise elicitation gets the call refused with
/// the confirmation's text; the write never arrives. Its host can ask the
/// user itself and post the answer as an approval through the side
/// channel, after which the agent's identical call runs. Both transports.
#[tokio::test(flavor = "multi_thread")]
async fn a_client_without_elicitation_gets_the_confirmation_text() {
    for http in [false, true] {
        let Some(world) = World::new() else { return };
        let mut steps = unanswered_cancellation();
        steps.extend([
            json!({ "tell": [{ "type": "approval", "call": HELD_CALL, "granted": true, "by": "user" }] }),
            cancel(),
        ]);
        let (lines, session) = run_client(&world, true, http, &steps, Answer::Unsupported).await;
        let answers = calls(&lines);
        let refused = answers[3];
        assert_eq!(refused["error"], true, "{refused:#}");
        assert_eq!(refused["verdict"]["verdict"], "confirm");
        let confirmation = held_confirmation(&world, &session);
        assert_eq!(
            refused["text"], confirmation["text"],
            "the error is the confirmation's text"
        );
        assert_eq!(refused["verdict"]["confirmation"], confirmation);
        assert_eq!(answers[4]["error"], false, "{lines:#?}");
        assert_eq!(
            world.arrived().last().map(String::as_str),
            Some("cancel_pending_order")
        );
        assert_eq!(
            world
                .arrived()
                .iter()
                .filter(|t| *t == "cancel_pending_order")
                .count(),
            1,
            "only the approved call arrived"
        );
        let stored = world.stored_verdicts(&session);
        assert_eq!(
            stored[10]["approved"],
            json!({ "by": "user", "call": HELD_CALL }),
            "{stored:#?}"
        );
    }
}

/// The gateway killed with SIGKILL in the middle of a conversation and
/// started again on the same session: the reads made before are still
/// there, so the cancellation after the restart runs, and the event
/// numbers go on where they stopped.
#[tokio::test(flavor = "multi_thread")]
async fn kill_9_of_a_stdio_gateway_loses_nothing_decided() {
    let Some(world) = World::new() else { return };
    let side = free_port();
    let command = world.stdio_gateway(side, &["--session", "k9"]);
    let (client, pid) = rmcp_stdio(&command, Answering::new(Answer::Unsupported)).await;
    let before = unanswered_cancellation();
    let lines = rmcp_steps(&client, side, &|| "k9".into(), &before).await;
    let answers = calls(&lines);
    assert!(answers[..3].iter().all(|a| a["error"] == false));
    assert_eq!(answers[3]["verdict"]["verdict"], "confirm");
    let killed = std::process::Command::new("kill")
        .args(["-9", &pid.to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    drop(client);
    assert_eq!(
        world.stored_verdicts("k9").len(),
        9,
        "every acknowledged event is stored"
    );

    // The held call survived the restart: the host's approval of it opens
    // the identical call.
    let (client, _) = rmcp_stdio(&command, Answering::new(Answer::Unsupported)).await;
    let after = [
        json!({ "tell": [{ "type": "approval", "call": HELD_CALL, "granted": true }] }),
        cancel(),
    ];
    let lines = rmcp_steps(&client, side, &|| "k9".into(), &after).await;
    client.cancel().await.unwrap();
    let answer = calls(&lines)[0];
    assert_eq!(answer["error"], false, "{answer:#}");
    let stored = world.stored_verdicts("k9");
    assert_eq!(stored.len(), 12);
    assert_eq!(stored[10]["verdict"], "allow");
    assert_eq!(
        stored[10]["event"], 10,
        "numbering goes on after the restart"
    );
    assert_eq!(stored[10]["approved"]["call"], HELD_CALL);
}

/// The same over HTTP: the client keeps its MCP session id across the
/// gateway's SIGKILL and restart, and the gateway takes it back (its
/// handshake kept beside the store) with its conversation.
#[tokio::test(flavor = "multi_thread")]
async fn kill_9_of_an_http_gateway_keeps_its_clients_sessions() {
    let Some(world) = World::new() else { return };
    let side = free_port();
    let port = free_port();
    let mut gateway = world.http_gateway(port, side, None, &[]);
    let client = rmcp_http(&gateway.url, Answering::new(Answer::Unsupported)).await;
    let mut before = vec![opening()];
    before.extend(reads());
    let lines = rmcp_steps(&client, side, &|| world.live_http_session(), &before).await;
    assert!(calls(&lines).iter().all(|a| a["error"] == false));
    let session = world.live_http_session();
    gateway.process.kill();
    assert_eq!(world.stored_verdicts(&session).len(), 7);

    let _restarted = world.http_gateway(port, side, None, &[]);
    let after = [summary(), yes(), cancel()];
    let lines = rmcp_steps(&client, side, &|| session.clone(), &after).await;
    let answer = calls(&lines)[0];
    assert_eq!(answer["error"], false, "{lines:#?}");
    assert_eq!(world.stored_verdicts(&session)[9]["verdict"], "allow");
    client.cancel().await.unwrap();
}

/// Two clients of one HTTP gateway at once: each MCP session is a
/// conversation of its own, so one client's reads and consent do nothing
/// for the other's write.
#[tokio::test(flavor = "multi_thread")]
async fn concurrent_http_clients_are_isolated() {
    let Some(world) = World::new() else { return };
    let side = free_port();
    let gateway = world.http_gateway(0, side, None, &[]);
    let first = rmcp_http(&gateway.url, Answering::new(Answer::Unsupported)).await;
    let first_session = world.live_http_session();
    let second = rmcp_http(&gateway.url, Answering::new(Answer::Unsupported)).await;
    let consented = consented_cancellation();
    let direct = [cancel()];
    let first_id = || first_session.clone();
    let no_tell = || unreachable!("no tell step");
    let (first_lines, second_lines) = tokio::join!(
        rmcp_steps(&first, side, &first_id, &consented),
        rmcp_steps(&second, side, &no_tell, &direct),
    );
    assert_eq!(calls(&second_lines)[0]["verdict"]["reason"], "MissingRead");
    assert_eq!(calls(&first_lines)[3]["error"], false, "{first_lines:#?}");
    first.cancel().await.unwrap();
    second.cancel().await.unwrap();
}

/// A server that cannot be started fails the client's handshake: nothing
/// is served that cannot be gated.
#[tokio::test(flavor = "multi_thread")]
async fn a_server_that_cannot_start_fails_the_handshake() {
    let Some(world) = World::new() else { return };
    let mut command = vec![env!("CARGO_BIN_EXE_turnstile").to_owned()];
    command.extend(world.gateway_args(free_port(), &[]));
    command.extend(["--".into(), "/nonexistent/mcp-server".into()]);
    let mut process = tokio::process::Command::new(&command[0]);
    process.args(&command[1..]);
    let child = rmcp::transport::TokioChildProcess::new(process).unwrap();
    let refused = rmcp::ServiceExt::serve(Answering::new(Answer::Unsupported), child).await;
    assert!(refused.is_err(), "the handshake must fail");
}

/// The side channel takes the host's events (messages here), with the
/// token, for a conversation of this gateway; calls and results only come
/// through MCP.
#[tokio::test(flavor = "multi_thread")]
async fn the_side_channel_needs_the_token_and_takes_no_calls() {
    let Some(world) = World::new() else { return };
    let side = free_port();
    let command = world.stdio_gateway(side, &["--session", "here"]);
    let (client, _) = rmcp_stdio(&command, Answering::new(Answer::Unsupported)).await;
    let address = format!("127.0.0.1:{side}");
    let user = r#"{"type":"user","text":"hello"}"#;
    tokio::task::block_in_place(|| {
        let (status, _) = common::http(
            &address,
            "POST",
            "/v1/sessions/here/events",
            Some(user),
            None,
        );
        assert_eq!(status, 401);
        let (status, _) = common::http(
            &address,
            "POST",
            "/v1/sessions/here/events",
            Some(user),
            Some("wrong"),
        );
        assert_eq!(status, 401);
        let (status, _) = common::http(
            &address,
            "POST",
            "/v1/sessions/other/events",
            Some(user),
            Some(harness::TOKEN),
        );
        assert_eq!(status, 404);
        let call = r#"{"type":"call","id":"x","tool":"cancel_pending_order","args":{}}"#;
        let (status, body) = common::http(
            &address,
            "POST",
            "/v1/sessions/here/events",
            Some(call),
            Some(harness::TOKEN),
        );
        assert_eq!(status, 422, "{body}");
        let (status, body) = common::http(
            &address,
            "POST",
            "/v1/sessions/here/events",
            Some(user),
            Some(harness::TOKEN),
        );
        assert_eq!(status, 200, "{body}");
        assert_eq!(common::json(&body)[0]["verdict"], "observe");
    });
    client.cancel().await.unwrap();
    assert_eq!(
        world.stored_verdicts("here").len(),
        1,
        "only the message was taken"
    );
}

/// A second gateway on a conversation another one holds refuses to start.
#[tokio::test(flavor = "multi_thread")]
async fn a_second_gateway_on_a_held_conversation_fails_at_start() {
    let Some(world) = World::new() else { return };
    let command = world.stdio_gateway(free_port(), &["--session", "held"]);
    let (client, _) = rmcp_stdio(&command, Answering::new(Answer::Unsupported)).await;
    let second = world.stdio_gateway(free_port(), &["--session", "held"]);
    let out = std::process::Command::new(&second[0])
        .args(&second[1..])
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("held"), "{stderr}");
    client.cancel().await.unwrap();
}
