//! What the judge is asked: which requests wait for a judge verdict, the
//! question for each (the node's criterion with the values the request is
//! about, or the branches of a classification, with the conversation slice
//! from the predecessor's evidence — or the conversation's start — to now),
//! and which answers become verdict facts. Anything but a positive answer
//! whose evidence lies inside the slice leaves the step unsatisfied: the
//! gate fails closed.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use turnstile_judge::{
    Branch, Conversation, JudgeRequest, Judgement, Question, Role, Turn, Verdict,
};
use turnstile_rules::Monitor;
use turnstile_rules::{Env, EventIdx};
use turnstile_rules::{Interner, StepId};

use super::runtime::{Asked, BundleRuntime};
use super::state::AskedQuestion;
use super::turns::LastTurns;
use crate::bundle::model::JudgeWindow;

/// One question of a firing: the steps it decides and the request.
#[derive(Clone, Debug)]
pub struct Ask {
    /// `(step, branch label)`; the label is `None` for a criterion.
    pub steps: Vec<(StepId, Option<String>)>,
    pub env: Env,
    /// First event of the slice shown to the judge.
    pub from: EventIdx,
    /// The verdict takes effect at this event at the earliest (the
    /// predecessor's evidence): an intent stated before the classification
    /// was reached counts from there.
    pub ready: EventIdx,
    /// Judged on the whole conversation (a classification, a `conversation`
    /// criterion) rather than on what followed the predecessor.
    pub whole_conversation: bool,
    /// One past the slice's last turn by the speaker whose words can change
    /// the answer (`from` when they said nothing in it).
    pub slice_end: EventIdx,
    /// One past the last event of the slice the judge was shown (set by
    /// [`with_slices`]).
    pub until: EventIdx,
    /// What the judge is asked, without the conversation slice (which
    /// [`with_slices`] adds to the request it hands out).
    pub request: JudgeRequest,
}

impl Ask {
    /// Where an accepted verdict takes effect. An `after_previous` criterion
    /// (a confirmation, a refusal) at its evidence, which lies after the
    /// predecessor's evidence. A `conversation` criterion (a reason or a
    /// choice the user stated) and a classification where the step became
    /// ready: what the user said holds for the conversation, whenever they
    /// said it, so the reads the agent made meanwhile still count.
    pub fn effective_at(&self, evidence: EventIdx) -> EventIdx {
        if self.whole_conversation {
            self.ready
        } else {
            evidence.max(self.ready)
        }
    }

    /// Identifies the question and its slice up to the last turn that can
    /// change the answer — the user's for classifications and for what the
    /// user says, the agent's for what the agent does: asking again before
    /// that speaker says something new cannot change it.
    pub fn key(&self) -> AskedQuestion {
        let first = self.steps.first().map_or(StepId(u32::MAX), |(s, _)| *s);
        AskedQuestion {
            step: first,
            request: self.env,
            ready: self.ready,
            slice_end: self.slice_end,
        }
    }

    /// Whether `other` asks the same thing on the same slice (an answer
    /// to one is an answer to the other): the same steps, request, window
    /// and question.
    pub fn same_question(&self, other: &Ask) -> bool {
        self.steps == other.steps
            && self.env == other.env
            && self.from == other.from
            && self.ready == other.ready
            && self.slice_end == other.slice_end
            && self.whole_conversation == other.whole_conversation
            && self.request == other.request
    }

    /// The speaker whose words can change the answer.
    fn speaker(&self) -> Role {
        match &self.request.question {
            Question::Criterion { said_by, .. } => *said_by,
            Question::Classify { .. } | Question::Consent { .. } => Role::User,
        }
    }
}

/// The questions for every request waiting on a judge, except those
/// already asked (`asked`) on a slice that ends alike. Their conversation
/// slices are left empty: [`with_slices`] adds them to the requests it
/// hands out, only for the questions left.
pub fn questions(
    rt: &BundleRuntime,
    monitor: &Monitor,
    interner: &Interner,
    turns: &LastTurns,
    asked: &BTreeSet<AskedQuestion>,
) -> Vec<Ask> {
    let mut criteria: Vec<Ask> = Vec::new();
    let mut branches: BTreeMap<(u32, Env), Ask> = BTreeMap::new();
    for waiting in monitor.waiting() {
        let Some(from) = waiting.judge_from else {
            continue;
        };
        let Some(info) = rt.step(waiting.step) else {
            continue;
        };
        let Some(asked) = &info.asked else { continue };
        let bindings = bindings(rt, &waiting.request, interner);
        let node = &rt.bundle.workflow.graph[info.node];
        match asked {
            Asked::Criterion {
                text,
                keywords,
                said_by,
                window,
            } => {
                // A `conversation` criterion (a reason the user stated) is
                // judged on everything said so far, including what was said
                // before its predecessor's evidence (before the order was read).
                let start = match window {
                    JudgeWindow::AfterPrevious => from,
                    JudgeWindow::Conversation => EventIdx(0),
                };
                criteria.push(Ask {
                    steps: vec![(waiting.step, None)],
                    env: waiting.request,
                    from: start,
                    ready: from,
                    whole_conversation: *window == JudgeWindow::Conversation,
                    slice_end: turns.slice_end(*said_by, start),
                    until: start,
                    request: JudgeRequest {
                        bundle_hash: rt.bundle.hash.clone(),
                        node_id: node.id.clone(),
                        question: Question::Criterion {
                            text: text.clone(),
                            keywords: keywords.clone(),
                            said_by: *said_by,
                            key_values: key_values(rt, &waiting.request, interner),
                        },
                        policy_excerpt: node.expect.clone(),
                        bindings,
                        conversation: Conversation::default(),
                    },
                });
            }
            Asked::Branch {
                decision,
                label,
                description,
                keywords,
                actions,
            } => {
                let ask = branches
                    .entry((decision.index() as u32, waiting.request))
                    .or_insert_with(|| Ask {
                        steps: Vec::new(),
                        env: waiting.request,
                        // Users say what they want before they are identified,
                        // and often several things at once: a classification
                        // sees the whole conversation.
                        from: EventIdx(0),
                        ready: from,
                        whole_conversation: true,
                        slice_end: turns.slice_end(Role::User, EventIdx(0)),
                        until: EventIdx(0),
                        request: JudgeRequest {
                            bundle_hash: rt.bundle.hash.clone(),
                            node_id: node.id.clone(),
                            question: Question::Classify {
                                branches: Vec::new(),
                            },
                            policy_excerpt: node.expect.clone(),
                            bindings,
                            conversation: Conversation::default(),
                        },
                    });
                ask.ready = ask.ready.min(from);
                ask.steps.push((waiting.step, Some(label.clone())));
                if let Question::Classify { branches } = &mut ask.request.question {
                    branches.push(Branch {
                        label: label.clone(),
                        description: description.clone(),
                        keywords: keywords.clone(),
                        actions: actions.clone(),
                    });
                }
            }
        }
    }
    criteria.extend(branches.into_values());
    criteria.retain(|ask| !asked.contains(&ask.key()));
    for ask in &criteria {
        debug_assert_eq!(ask.slice_end, turns.slice_end(ask.speaker(), ask.from));
    }
    criteria
}

/// Whether [`questions`] gives a question about a step of `on_path`,
/// without building any: the same waiting requests, filtered by the same
/// keys (`Ask::key`) against `asked`. A blocked write that no answer can
/// lift asks nothing, and this is all it needs to know.
pub fn any_question(
    rt: &BundleRuntime,
    monitor: &Monitor,
    turns: &LastTurns,
    asked: &BTreeSet<AskedQuestion>,
    on_path: &BTreeSet<StepId>,
) -> bool {
    // Per classification and request: its first step, the earliest event
    // a verdict may cite, and whether a step of it is on the path.
    let mut branches: BTreeMap<(u32, Env), (StepId, EventIdx, bool)> = BTreeMap::new();
    for waiting in monitor.waiting_iter() {
        let Some(from) = waiting.judge_from else {
            continue;
        };
        let Some(how) = rt.step(waiting.step).and_then(|info| info.asked.as_ref()) else {
            continue;
        };
        match how {
            Asked::Criterion {
                said_by, window, ..
            } => {
                let start = match window {
                    JudgeWindow::AfterPrevious => from,
                    JudgeWindow::Conversation => EventIdx(0),
                };
                let key = AskedQuestion {
                    step: waiting.step,
                    request: waiting.request,
                    ready: from,
                    slice_end: turns.slice_end(*said_by, start),
                };
                if on_path.contains(&waiting.step) && !asked.contains(&key) {
                    return true;
                }
            }
            Asked::Branch { decision, .. } => {
                let on = on_path.contains(&waiting.step);
                branches
                    .entry((decision.index() as u32, waiting.request))
                    .and_modify(|(step, ready, any_on)| {
                        *step = (*step).min(waiting.step);
                        *ready = (*ready).min(from);
                        *any_on |= on;
                    })
                    .or_insert((waiting.step, from, on));
            }
        }
    }
    let slice_end = turns.slice_end(Role::User, EventIdx(0));
    branches
        .into_iter()
        .any(|((_, request), (step, ready, on))| {
            on && !asked.contains(&AskedQuestion {
                step,
                request,
                ready,
                slice_end,
            })
        })
}

/// The judge requests of `asks`: each question with its slice `[from, now)`
/// of `rendered`, the events rendered as judge turns as they arrived (by
/// [`super::turns::render`], once each, not once per question), shared rather than
/// copied: a request costs its range, not its turns. Notes where each slice
/// ends, for [`accept`].
pub fn with_slices(
    asks: &mut [Ask],
    rendered: &Arc<Vec<Turn>>,
    now: EventIdx,
) -> Vec<JudgeRequest> {
    let end = now.as_usize().min(rendered.len());
    asks.iter_mut()
        .map(|ask| {
            let start = ask.from.as_usize().min(end);
            ask.until = EventIdx::from_usize(end);
            JudgeRequest {
                // A range of the shared list: no turn is copied.
                conversation: Conversation::shared(rendered, start..end),
                ..ask.request.clone()
            }
        })
        .collect()
}

/// The step a judgement satisfies and its evidence event, or why it does not
/// satisfy any.
pub fn accept(ask: &Ask, judgement: &Judgement) -> Result<(StepId, EventIdx), String> {
    let (step, evidence) = match &judgement.verdict {
        Verdict::Satisfied { evidence_event } => match ask.steps.as_slice() {
            [(step, None)] => (*step, *evidence_event),
            _ => return Err("a yes/no answer to a classification".to_owned()),
        },
        Verdict::Chosen {
            label,
            evidence_event,
        } => {
            let step = ask
                .steps
                .iter()
                .find(|(_, l)| l.as_deref() == Some(label.as_str()))
                .map(|(s, _)| *s)
                .ok_or_else(|| format!("label {label:?} is not one of the branches"))?;
            (step, *evidence_event)
        }
        Verdict::NotSatisfied => return Err("not satisfied".to_owned()),
        Verdict::Unknown { reason } => return Err(format!("unknown: {reason}")),
    };
    // The slice holds every event of `[from, until)`; evidence after the
    // last turn of the speaker whose words decide the question
    // (`slice_end`) is not evidence: asking again before that speaker says
    // something new is skipped ([`Ask::key`]), so such evidence would make
    // the answer depend on when the judge happened to be asked.
    if evidence < ask.from.0 || evidence >= ask.until.0.min(ask.slice_end.0) {
        return Err(format!(
            "evidence event {evidence} is not part of the judged slice up to the last turn that decides it"
        ));
    }
    Ok((step, EventIdx(evidence)))
}

/// The values a request is about (its order, its reservation; not the
/// principal it belongs to): a confirmation counts only for a summary that
/// names them, so a yes to one order's summary never confirms another.
fn key_values(rt: &BundleRuntime, env: &Env, interner: &Interner) -> Vec<String> {
    env.bound()
        .filter(|(var, _)| rt.principal_mask & var.mask() == 0)
        .map(|(_, value)| interner.resolve(value).to_owned())
        .collect()
}

fn bindings(rt: &BundleRuntime, env: &Env, interner: &Interner) -> BTreeMap<String, String> {
    env.bound()
        .filter_map(|(var, value)| {
            let v = rt.bundle.variables.get(var.0 as usize)?;
            Some((v.name.clone(), interner.resolve(value).to_owned()))
        })
        .collect()
}
