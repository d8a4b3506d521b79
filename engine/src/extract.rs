//! Fact extraction: turns a trace's events into the typed, interned facts the
//! evaluator reads — calls, results, argument values along the paths the
//! checks use, entity attributes from successful reads (with the interval in
//! which each value is the latest), and request bindings. Input that does not
//! fit the schema becomes a typed diagnostic; the facts it would have
//! produced are simply absent, so the checks needing them fail closed.
//!
//! Composite ids (an entity with a `key`, e.g. a flight on a date) are made
//! here from the result or the call's arguments ([`composite_id`]), so the
//! evaluators only ever see string ids.
//!
//! A ticket ([`Event::Ticket`]) is the user's statement before the
//! conversation: its values are mentions by the user and by the ticket (so
//! `said(user, ...)` and `said(ticket, ...)` hold for them; the judge reads
//! it as a user turn, marked "Ticket:"),
//! but its turn carries no consent cue — it affirms, refuses and corrects
//! nothing — so it can never be the yes to a summary. Only a ticket before
//! the agent's first event counts; a later one is an anomaly
//! ([`ExtractionProblem::LateTicket`]) and states nothing.
//!
//! A turn names a record by its id, by an alias its entity declares (a
//! read record's `last4`), or — a request for a decision naming an action —
//! by being the only record of its kind in play (a reference: it counts for
//! `confirmed`, not `said`). A question naming one record proposes that one,
//! not the others of its kind the turn names elsewhere; a value named only
//! inside a longer phrase the bundle or the conversation knows is not named
//! on its own.
//!
//! One principal per conversation: the variables bound before the request is
//! classified (the authenticated user, [`principal_mask`]) bind
//! once; a later identification of someone else binds nothing, so it opens
//! no request of its own and every request stays about the first user.

use std::collections::{BTreeMap, BTreeSet};
use std::ops::Range;
use std::sync::Arc;

use hashbrown::{HashMap, HashSet};
use serde_json::Value as Json;
use smallvec::SmallVec;
use turnstile_judge::dialogue::{
    AskedWords, Disowning, Lexicon, Lookup, ReadTurn, ReadValue, Reply as CueReply, TokenSegments,
    TurnCues, ValueToken, Word, amount_of, asking_action_sentences, asks_ownership,
    declines_action, identifier_word, is_record_word, labelled_values, plurals, puts_forward,
    readable_text, turn_cues_of,
};
use turnstile_judge::{Role, Turn};
use turnstile_rules::{
    Amount, ArgPath, ArgStep, Date, DateTime, EventIdx, Interner, StepId, StepOrigin, Timing,
    TraceFacts, Value, ValueType,
};
use turnstile_rules::{
    ArgFact, ArgLenFact, BindFact, CallFact, DisownFact, EventFacts, ExtractionDiagnostic,
    ExtractionProblem, FactsBuilder, HeldFact, LiteralFact, MentionFact, PassedOverFact, Read,
    Reply, ResultFact, SCALAR, Speaker, Symbol, TurnFact, UNKNOWN_PLACE, UNPLACED_SEGMENT,
};

use crate::bundle::model::{Control, Side, ToolKind};
use crate::choices::{ChoiceTurn, Choices};
use crate::compile::{CompiledBundle, Phrases};
use crate::fsm::BindSource;
use crate::schema::{JsonPath, JsonStep, KeyField, KeyPart, ReadSpec, Tool, composite_id};
use crate::trace::{Event, Trace};

/// Extracts the facts of `trace`. Semantic verdicts (`judged`) are added by
/// the caller, who owns the judge. Each event's time is what the bundle's
/// clock and the trace's recorded times give (none: `now()` is unknown
/// there and every check on it fails closed).
pub fn extract(bundle: &CompiledBundle, trace: &Trace) -> TraceFacts {
    let mut extractor = Extractor::new(bundle);
    let mut builder = FactsBuilder::new(bundle.arg_paths.clone());
    let times = event_times(bundle, trace);
    for (index, event) in trace.events.iter().enumerate() {
        let k = EventIdx::from_usize(index);
        let mut facts = extractor.event(bundle, k, event).facts;
        facts.now = times.get(index).copied().flatten();
        builder.push(&facts);
    }
    let events = u32::try_from(trace.events.len()).unwrap_or(u32::MAX);
    builder.finish(extractor.interner, events)
}

/// The time of each event of `trace` on the bundle's clock, with no
/// `--now` to fall back on (`None` where none is known).
pub fn event_times(bundle: &CompiledBundle, trace: &Trace) -> Vec<Option<DateTime>> {
    crate::clock::trace_times(
        bundle.clock,
        false,
        &trace.meta.times,
        trace.events.len(),
        None,
        (&trace.meta.id, &bundle.name),
    )
    .unwrap_or_default()
}

/// One kind a value may be of, for telling two values of one kind apart
/// ([`Extractor::apposed_peers`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum PeerKind {
    /// A record of this entity: its id, an alias, or a value no other
    /// record of the entity was read as.
    Entity(Symbol),
    /// A literal of this enum.
    Literal(Symbol),
    /// A value read in this field of this entity (entity, field) that is
    /// no record's id or alias.
    Field(Symbol, Symbol),
}

/// The kinds of one value, each with the record it stands for as a thing
/// of that kind (for an entity's).
#[derive(Debug, Default)]
struct PeerKinds {
    value: Option<Symbol>,
    kinds: SmallVec<[(PeerKind, Option<Symbol>); 4]>,
}

impl PeerKinds {
    /// Whether this value (named in an aside) is another thing of a kind
    /// of `head` (named before it): of an entity both stand for records
    /// of, naming a record of it `head` does not; or a literal of one enum,
    /// or a value read in one field, as another value.
    fn peers(&self, head: &PeerKinds) -> bool {
        self.value != head.value
            && self.kinds.iter().any(|&(kind, record)| {
                let of_kind = |(k, _): &&(PeerKind, Option<Symbol>)| *k == kind;
                match kind {
                    PeerKind::Entity(_) => {
                        head.kinds.iter().any(|k| of_kind(&k))
                            && !head.kinds.iter().filter(of_kind).any(|&(_, r)| r == record)
                    }
                    PeerKind::Literal(_) | PeerKind::Field(..) => {
                        head.kinds.iter().any(|k| of_kind(&k))
                    }
                }
            })
    }
}

/// A record a turn mentions, with its kind: its entity type, or none for
/// an order-like record id.
type KindedRecord = (Option<Symbol>, Symbol);

/// Turns events into facts one at a time (the live session and the batch
/// extraction share it). Owns the interner the facts' symbols resolve in.
#[derive(Clone, Debug)]
pub struct Extractor {
    /// The bundle's interner extended with the trace's strings.
    pub interner: Interner,
    /// Call id to (call event, tool name, arguments) for calls whose
    /// results count; `None` for an untrusted call (its result reads nothing).
    open_calls: HashMap<String, Option<(EventIdx, String, Json)>>,
    /// Every call id seen, to report reuse.
    seen_ids: hashbrown::HashSet<String>,
    /// The facts of the event being extracted.
    facts: EventFacts,
    /// The principal variables ([`principal_mask`]) and the value each was
    /// first bound to in this conversation.
    principal_mask: u32,
    principal: BTreeMap<u32, turnstile_rules::Symbol>,
    /// Every turn so far, read once, for the dialogue predicates' mentions.
    turns: Vec<SeenTurn>,
    /// The interned values that are one of the domain's words for an
    /// action, with their actions' bits ([`Lexicon::action_bits`]): a turn
    /// naming another word of the action names them ("erase" for "wipe").
    action_values: Vec<(u32, u16)>,
    /// The host's principal, once one was accepted: its id. One per
    /// conversation: another is an anomaly and names nothing.
    host_principal: Option<String>,
    /// Every interned string read as a value (by symbol index), `None` for
    /// strings no turn can name (no token, or longer than [`MAX_VALUE_TOKENS`]).
    values: Vec<Option<ReadValue>>,
    /// The values that are identifiers, by symbol, with the word turns
    /// write them as ([`identifier_word`]).
    identifiers: HashMap<u32, String>,
    /// The values whose text holds an ASCII digit, in the order they were
    /// known: the only ones a word holding a digit can be written in
    /// ([`Extractor::values_written_as`]).
    digit_values: Vec<u32>,
    /// Which turns and values share a key, so a mention is looked for only
    /// where it can be.
    index: MentionIndex,
    /// Every date and non-negative amount read or passed as an argument so
    /// far, each once, with its canonical text read as a value: turns name
    /// them as they name strings (`confirmed(args.flights[*].date)`).
    typed_values: Vec<(Value, ReadValue)>,
    typed_seen: hashbrown::HashSet<Value>,
    /// Positions in `typed_values` by canonical amount, and of every date:
    /// a new turn is tested against those its keys can name only.
    typed_keys: ValuesByKey,
    /// Who may call the user-side tools (the bundle's, or the trace's).
    control: Control,
    /// What the agent has asked the user to decide so far: a qualifier in a
    /// reply about something else does not take a yes back.
    asked: AskedWords,
    /// The latest read of every list a paged read must cover (`pages`'
    /// `complete_against`), by `(entity, id, field)`, as id texts.
    lists: HashMap<(String, String, String), Vec<String>>,
    /// Those lists, as `(entity, field)`.
    paged_lists: Vec<(String, String)>,
    /// Whether the agent has spoken or called a tool yet: a ticket counts
    /// only before.
    agent_acted: bool,
    /// The entities' alias fields (`aliases:`), as `(entity, field)`.
    alias_fields: Vec<(Symbol, Symbol)>,
    /// Every entity's record nouns and their plurals, lower-cased, each
    /// with its entity: a value between a determiner and one of them
    /// describes a record of that entity ([`ReadTurn::described_record`]).
    record_nouns: Vec<(String, Symbol)>,
    /// Each alias value read so far and the record it names: `None` once
    /// two records share it (it names neither from then on).
    aliases: HashMap<Symbol, Option<Symbol>>,
    /// The records in play: per entity type, the ids its reads returned so
    /// far, in the order first read.
    in_play: BTreeMap<Symbol, Vec<Symbol>>,
    /// Each record id in play with its type (the first in `in_play`'s
    /// order, when several read it).
    in_play_type: HashMap<Symbol, Symbol>,
    /// Per record id, the strings its fields were read as so far: what a
    /// call names the record by besides its id (a medication for a
    /// prescription), for a record a reply holds back.
    record_strings: HashMap<Symbol, Vec<Symbol>>,
    /// The entity fields each string was read in (entity, field): two
    /// values read in one field are of one kind
    /// ([`Extractor::apposed_peers`]).
    read_fields: HashMap<Symbol, SmallVec<[(Symbol, Symbol); 2]>>,
    /// Per record id, the strings its single-valued fields were read as
    /// (its current class, not the classes it could change to): what a
    /// user names as the value an action replaces.
    current_strings: HashMap<Symbol, Vec<Symbol>>,
    /// The entities whose one record in play a turn set beside another of
    /// the kind, named by a value written like its alias
    /// ([`Extractor::note_alias_rivals`]): no request names it unspelt.
    contested: BTreeSet<Symbol>,
    /// The actions (a bit each) the latest request for a decision naming
    /// an action proposed, none once it declined one or the user asked
    /// for another: a request naming no action restates them.
    requested_actions: u16,
    /// The literals of the bundle's enums, handed out with the first
    /// event's facts ([`EventFacts::literals`]); empty after it.
    literals: Vec<LiteralFact>,
    /// Every literal of the bundle's enums with its enum, `(literal, enum)`:
    /// a user putting one forward passes over the others
    /// ([`Extractor::gives_another_literal`]).
    enum_literals: Arc<[(Symbol, Symbol)]>,
    /// The enums an agent-side write takes an argument of, each with the
    /// words of those parameters' names: only their literals can be what a
    /// request proposes for a call, and a summary's line labelled by one of
    /// the words gives it ([`Extractor::context_literals`]).
    argument_enums: Vec<(Symbol, Vec<String>)>,
    /// The words naming the fields whose values a *yes* or *no* states
    /// ([`CompiledBundle::answer_fields`]).
    answer_fields: Arc<[String]>,
    /// The bundle's phrases ([`CompiledBundle::phrases`]), and the values of
    /// several words read or passed so far: a turn naming a value only
    /// inside one of them does not name it ([`names_on_its_own`]).
    phrases: Arc<Phrases>,
    read_phrases: Phrases,
    /// How many strings the bundle interned: its phrases are known already.
    bundle_strings: usize,
    /// The empty string: a detail with nothing to state, so every turn
    /// states it for `confirmed` (an address's blank second line is
    /// confirmed by any summary of the address); nobody *said* it, so an
    /// empty id is never the user's.
    empty: Symbol,
    /// The request sentences of the agent turn being extracted, when it
    /// asks for a decision ([`TurnCues::proposal`]).
    proposal: Option<TurnCues>,
    /// The values questions offered beside another option, and the
    /// replies that picked the other.
    choices: Choices,
}

/// Adds a mention; one in the ticket is the user's too (the ticket is what
/// the user stated), so `said(user, x)` holds for it and `said(ticket, x)`
/// for it alone.
fn push_mention(facts: &mut EventFacts, mention: MentionFact) {
    if mention.speaker == Speaker::Ticket {
        facts.mentions.push(MentionFact {
            speaker: Speaker::User,
            ..mention
        });
    }
    facts.mentions.push(mention);
}

/// Whether `turn` names `value` (the string `symbol`) on its own:
/// somewhere not as words of a longer phrase the bundle knows or the
/// conversation read ("economy" in "basic economy", "insurance" in "no
/// insurance", a role "editor" in "senior editor"): a summary naming the
/// phrase names that, not its parts. A value of words is looked for only at
/// `starts`, where the index found its first word ([`names_at`]).
fn names_on_its_own<K>(
    turn: &ReadTurn,
    symbol: Symbol,
    value: &ReadValue,
    phrases: [&Phrases; 2],
    answer_fields: &[String],
    starts: &[Placed<K>],
) -> bool {
    if value.words() == 0 {
        // No phrase holds an amount or a date: they are named by value.
        return turn.names_read(value);
    }
    // A *yes* or *no* alone names a field's value only beside the field's
    // name; a phrase starting with one ("no insurance") is named whole.
    let answer = value.words() == 1;
    let mut found = word_starts(turn, value, starts)
        .filter(|&at| {
            if answer && turn.is_answer_word(at) {
                turn.answers_for_field(at, answer_fields)
            } else {
                !turn.is_asked_answer(at)
            }
        })
        .peekable();
    if found.peek().is_none() {
        return false;
    }
    let longer: Vec<(&ReadValue, usize)> = phrases
        .iter()
        .flat_map(|set| {
            set.containing(symbol, value)
                .into_iter()
                .filter_map(move |(at, offset)| Some((set.get(at)?, offset)))
        })
        .collect();
    if longer.is_empty() {
        return true;
    }
    // Each phrase is looked for only where it would hold the value, not
    // along the whole turn.
    found.any(|start| {
        !longer.iter().any(|&(phrase, offset)| {
            start
                .checked_sub(offset)
                .is_some_and(|from| turn.names_words_at(from, phrase))
        })
    })
}

/// Whether `turn` names `value` ([`ReadTurn::names_read`]), a value of words
/// looked for only at `starts`: the places of the turn's tokens equal to its
/// first word, as the [`MentionIndex`] found them. An amount or a date is
/// looked for by value.
fn names_at<K>(turn: &ReadTurn, value: &ReadValue, starts: &[Placed<K>]) -> bool {
    if value.words() == 0 {
        return turn.names_read(value);
    }
    word_starts(turn, value, starts).next().is_some()
}

/// The `starts` where a value of words stands in `turn`, in order.
fn word_starts<'a, K>(
    turn: &'a ReadTurn,
    value: &'a ReadValue,
    starts: &'a [Placed<K>],
) -> impl Iterator<Item = usize> + 'a {
    starts
        .iter()
        .filter_map(|&(_, at)| at)
        .filter(move |&at| turn.names_words_at(at, value))
}

/// Token spans of a turn, `(first, count)`.
type Spans = SmallVec<[(usize, usize); 2]>;

/// Where `value` (found at `starts`) stands in `turn`, as token spans: a
/// value of words at its starts, a value of digits (a card's last four)
/// wherever its tokens do ([`ReadTurn::token_spans`]).
fn value_places<K>(turn: &ReadTurn, value: &ReadValue, starts: &[Placed<K>]) -> Spans {
    if value.words() > 0 {
        word_starts(turn, value, starts)
            .map(|at| (at, value.len()))
            .collect()
    } else {
        turn.token_spans(value).into_iter().collect()
    }
}

/// The entities of the records `turn` describes by the value of words
/// `value` (found at `starts`), when every place it stands is a description
/// of a record ([`ReadTurn::described_record`]): "the air purifier from your
/// sneakers order" names the sneakers to say which order. `None` when it
/// stands somewhere on its own, or nowhere.
fn described_kinds<K>(
    turn: &ReadTurn,
    value: &ReadValue,
    starts: &[Placed<K>],
    nouns: &[(String, Symbol)],
) -> Option<SmallVec<[Symbol; 2]>> {
    let noun = |token: &str| nouns.iter().find(|(n, _)| n == token).map(|&(_, e)| e);
    let mut kinds: SmallVec<[Symbol; 2]> = SmallVec::new();
    for (at, len) in value_places(turn, value, starts) {
        let kind = turn.described_record(at, len, noun)?;
        if !kinds.contains(&kind) {
            kinds.push(kind);
        }
    }
    (!kinds.is_empty()).then_some(kinds)
}

/// Whether a value held by records of the entities `own` describes, as
/// records of the entities `described`, records of another kind only: the
/// value names no record of its own there ("your Visa card" names the
/// card itself). A value no record holds (`own` empty) describes nothing.
fn describes_another_kind(own: &[Symbol], described: &[Symbol]) -> bool {
    !own.is_empty() && described.iter().all(|kind| !own.contains(kind))
}

/// A ticket's text as a judge reads it: marked, so a reader tells the
/// user's statement before the conversation from a reply.
pub(crate) fn ticket_text(text: &str) -> String {
    format!("Ticket: {text}")
}

/// What one event gives the extractor's caller.
#[derive(Clone, Debug)]
pub struct Extracted {
    /// The facts the event adds.
    pub facts: EventFacts,
    /// A user or agent message's turn as a judge reads it, tokenized for
    /// its cues (a session keeps it rather than tokenizing the text again);
    /// `None` for a tool event.
    pub turn: Option<Turn>,
}

/// Strings of more tokens than this are texts, not values a turn names.
const MAX_VALUE_TOKENS: usize = 8;

/// The variables (bit `i` for variable `i`) bound by steps that come before
/// the request is classified (the first dialogue-semantic decision branch;
/// without one, the first dialogue-semantic step): who the conversation is
/// with (`$user`, located by authentication), as opposed to what a request
/// is about (`$order`).
pub fn principal_mask(bundle: &CompiledBundle) -> u32 {
    let depth = turnstile_rules::step_depths(&bundle.program);
    let steps = &bundle.program.steps;
    let first = |branch_only: bool| {
        steps
            .iter()
            .zip(&depth)
            .filter(|(s, _)| s.semantic && (!branch_only || s.origin != StepOrigin::Node))
            .map(|(_, d)| *d)
            .min()
    };
    let classified = first(true).or_else(|| first(false)).unwrap_or(u32::MAX);
    steps
        .iter()
        .zip(&depth)
        .filter(|(_, d)| **d < classified)
        .fold(0, |mask, (s, _)| mask | s.bind_mask())
}

impl Extractor {
    /// An extractor for traces of `bundle`.
    pub fn new(bundle: &CompiledBundle) -> Self {
        Extractor::with_principal_mask(bundle, principal_mask(bundle))
    }

    /// [`Extractor::new`] with the bundle's [`principal_mask`] computed
    /// once by the caller (a runtime keeps it): it walks the step graph,
    /// which costs more than the rest of a new extractor.
    pub fn with_principal_mask(bundle: &CompiledBundle, principal_mask: u32) -> Self {
        let mut interner = bundle.interner.clone();
        let empty = interner.intern("");
        Extractor {
            interner,
            empty,
            open_calls: HashMap::new(),
            seen_ids: hashbrown::HashSet::new(),
            facts: EventFacts::default(),
            principal_mask,
            principal: BTreeMap::new(),
            turns: Vec::new(),
            action_values: Vec::new(),
            host_principal: None,
            values: Vec::new(),
            identifiers: HashMap::new(),
            digit_values: Vec::new(),
            index: MentionIndex::default(),
            typed_values: Vec::new(),
            typed_seen: hashbrown::HashSet::new(),
            typed_keys: ValuesByKey::default(),
            control: bundle.control,
            asked: AskedWords::default(),
            lists: HashMap::new(),
            paged_lists: bundle
                .domain
                .tools
                .values()
                .filter_map(|t| t.pages.as_ref()?.against.as_ref())
                .map(|a| (a.entity.clone(), a.field.clone()))
                .collect(),
            agent_acted: false,
            alias_fields: bundle
                .domain
                .entities
                .values()
                .flat_map(|entity| {
                    entity
                        .aliases
                        .iter()
                        .filter_map(|field| Some((entity.symbol, bundle.interner.get(field)?)))
                })
                .collect(),
            record_nouns: bundle
                .domain
                .entities
                .values()
                .flat_map(|entity| {
                    entity.nouns.iter().flat_map(move |noun| {
                        let noun = noun.to_lowercase();
                        plurals(&noun)
                            .into_iter()
                            .chain([noun])
                            .map(move |form| (form, entity.symbol))
                    })
                })
                .collect(),
            aliases: HashMap::new(),
            in_play: BTreeMap::new(),
            in_play_type: HashMap::new(),
            record_strings: HashMap::new(),
            read_fields: HashMap::new(),
            current_strings: HashMap::new(),
            contested: BTreeSet::new(),
            requested_actions: 0,
            literals: bundle
                .domain
                .enums
                .values()
                .flat_map(|def| {
                    def.values.iter().filter_map(|literal| {
                        Some(LiteralFact {
                            value: Value::Str(bundle.interner.get(literal)?),
                            of: def.symbol,
                        })
                    })
                })
                .collect(),
            enum_literals: bundle
                .domain
                .enums
                .values()
                .flat_map(|def| {
                    def.values
                        .iter()
                        .filter_map(|literal| Some((bundle.interner.get(literal)?, def.symbol)))
                })
                .collect(),
            argument_enums: bundle.argument_enums.clone(),
            answer_fields: Arc::clone(&bundle.answer_fields),
            proposal: None,
            choices: Choices::default(),
            phrases: bundle.phrases.clone(),
            read_phrases: Phrases::default(),
            bundle_strings: bundle.interner.len(),
        }
    }

    /// The entities of the records the string `value` names (as an alias)
    /// or whose fields were read as it, when it can describe a record of
    /// another kind ([`describes_another_kind`]): a value of words that is
    /// no identifier, enum literal or action word. Empty otherwise.
    fn record_kinds(&self, value: Symbol, read: &ReadValue, action: bool) -> SmallVec<[Symbol; 2]> {
        let mut kinds = SmallVec::new();
        if action
            || (read.words() == 0 && !self.aliases.contains_key(&value))
            || self.identifiers.contains_key(&value.0)
            || self
                .enum_literals
                .iter()
                .any(|(literal, _)| *literal == value)
        {
            return kinds;
        }
        let entity_of = |id: Symbol| {
            self.in_play
                .iter()
                .find(|(_, ids)| ids.contains(&id))
                .map(|(entity, _)| *entity)
        };
        let by_alias = self.aliases.get(&value).copied().flatten();
        let holders = self
            .record_strings
            .iter()
            .filter(|(_, strings)| strings.contains(&value))
            .map(|(record, _)| *record);
        for entity in by_alias.into_iter().chain(holders).filter_map(entity_of) {
            if !kinds.contains(&entity) {
                kinds.push(entity);
            }
        }
        kinds
    }

    /// The values a new agent turn names (`placed`: each with where it
    /// stands) only in its `asides` ([`ReadTurn::asides`]), each beside
    /// another thing of their kind that the aside's sentence names before
    /// it: "renew Circe (LN-48233) — the book you checked out with your
    /// Dune loan" names the Dune loan to say which book, not as one to
    /// renew ([`PeerKinds::peers`]). Kinds are looked up only for the
    /// values standing in asides alone and the ones before them.
    fn apposed_peers(
        &self,
        asides: &[(Range<usize>, Range<usize>)],
        placed: &[(u32, Spans)],
    ) -> Vec<u32> {
        let within = |range: &Range<usize>, &(at, len): &(usize, usize)| {
            range.start <= at && at + len <= range.end
        };
        // The values standing only inside asides, each with the asides
        // holding it at each place.
        let apart: Vec<(u32, Vec<Vec<usize>>)> = placed
            .iter()
            .filter_map(|(raw, spans)| {
                let holders: Vec<Vec<usize>> = spans
                    .iter()
                    .map(|span| {
                        (0..asides.len())
                            .filter(|&i| {
                                asides
                                    .get(i)
                                    .is_some_and(|(_, inside)| within(inside, span))
                            })
                            .collect()
                    })
                    .collect();
                (!holders.is_empty() && holders.iter().all(|h| !h.is_empty()))
                    .then_some((*raw, holders))
            })
            .collect();
        if apart.is_empty() {
            return Vec::new();
        }
        let mut kinds: Vec<(u32, PeerKinds)> = Vec::new();
        let mut kinds_of = |raw: u32| {
            if !kinds.iter().any(|(r, _)| *r == raw) {
                kinds.push((raw, self.peer_kinds(Symbol(raw))));
            }
        };
        // The values before each aside holding one of them.
        let before = |aside: usize| {
            placed.iter().filter(move |(_, spans)| {
                asides
                    .get(aside)
                    .is_some_and(|(head, _)| spans.iter().any(|s| within(head, s)))
            })
        };
        for (raw, holders) in &apart {
            kinds_of(*raw);
            for &aside in holders.iter().flatten() {
                for (other, _) in before(aside) {
                    kinds_of(*other);
                }
            }
        }
        let kind = |raw: u32| kinds.iter().find(|(r, _)| *r == raw).map(|(_, k)| k);
        apart
            .iter()
            .filter(|(raw, holders)| {
                holders.iter().all(|asides_here| {
                    asides_here.iter().any(|&aside| {
                        before(aside).any(|(other, _)| {
                            other != raw
                                && matches!((kind(*raw), kind(*other)), (Some(mine), Some(theirs)) if mine.peers(theirs))
                        })
                    })
                })
            })
            .map(|(raw, _)| *raw)
            .collect()
    }

    /// What kinds of thing the string `value` is, for
    /// [`Extractor::apposed_peers`].
    fn peer_kinds(&self, value: Symbol) -> PeerKinds {
        let mut kinds = PeerKinds::default();
        let entity_of = |id: Symbol| {
            self.in_play
                .iter()
                .find(|(_, ids)| ids.contains(&id))
                .map(|(entity, _)| *entity)
        };
        let record = |kinds: &mut PeerKinds, id: Symbol| {
            if let Some(entity) = entity_of(id) {
                kinds.kinds.push((PeerKind::Entity(entity), Some(id)));
            }
        };
        record(&mut kinds, value);
        if let Some(Some(id)) = self.aliases.get(&value) {
            record(&mut kinds, *id);
        }
        let is_id = !kinds.kinds.is_empty() || self.aliases.contains_key(&value);
        let literal = self.enum_literals.iter().any(|(l, _)| *l == value);
        if !is_id && !literal {
            // A value names a record of an entity when it is the one
            // record of it whose fields were read as the value.
            let mut holders: SmallVec<[(Symbol, Symbol); 4]> = self
                .record_strings
                .iter()
                .filter(|(_, strings)| strings.contains(&value))
                .filter_map(|(holder, _)| Some((entity_of(*holder)?, *holder)))
                .collect();
            holders.sort_unstable_by_key(|&(entity, holder)| (entity.0, holder.0));
            for &(entity, holder) in &holders {
                if holders.iter().filter(|(e, _)| *e == entity).count() == 1 {
                    kinds.kinds.push((PeerKind::Entity(entity), Some(holder)));
                }
            }
        }
        if !is_id && let Some(fields) = self.read_fields.get(&value) {
            kinds.kinds.extend(
                fields
                    .iter()
                    .map(|&(entity, field)| (PeerKind::Field(entity, field), None)),
            );
        }
        for (_, set) in self.enum_literals.iter().filter(|(l, _)| *l == value) {
            kinds.kinds.push((PeerKind::Literal(*set), None));
        }
        kinds.value = Some(value);
        kinds
    }

    /// Whether a paged read of the bundle must cover `entity.field`: its
    /// reads are kept ([`Extractor::lists`]).
    fn tracks_list(&self, entity: &str, field: &str) -> bool {
        self.paged_lists
            .iter()
            .any(|(e, f)| e == entity && f == field)
    }

    /// Who calls the user-side tools from now on (a trace's own mode).
    pub fn set_control(&mut self, control: Control) {
        self.control = control;
    }

    /// Who calls the user-side tools.
    pub fn control(&self) -> Control {
        self.control
    }

    /// The facts event `k` adds, and the turn of a user or agent message
    /// as a judge reads it.
    pub fn event(&mut self, bundle: &CompiledBundle, k: EventIdx, event: &Event) -> Extracted {
        self.facts = EventFacts {
            event: k,
            literals: std::mem::take(&mut self.literals),
            ..EventFacts::default()
        };
        let late_ticket = self.agent_acted;
        let mut x = Extraction { bundle, out: self };
        match event {
            Event::Call {
                id,
                tool,
                args,
                requestor,
            } => x.call(k, id, tool, args, *requestor),
            Event::Result { id, ok, content } => x.result(k, id, *ok, content),
            Event::Ticket { .. } if late_ticket => x.diagnose(
                k,
                ExtractionProblem::LateTicket,
                "a ticket after the agent's first event is not what the user stated before the conversation; it states nothing".to_owned(),
            ),
            Event::User { .. }
            | Event::Ticket { .. }
            | Event::Agent { .. }
            | Event::Approval { .. }
            | Event::Principal { .. } => {}
        }
        let learned = self.learn_records();
        let turn = self.mentions(k, event, &bundle.lexicon, bundle.host_principal);
        self.alias_mentions(&learned);
        self.note_choices(&bundle.lexicon, turn.is_some());
        if let Some(cues) = self.proposal.take() {
            self.mark_unproposed(k, &cues);
        }
        if self
            .facts
            .turn
            .is_some_and(|t| t.speaker == Speaker::Agent && t.asks_decision)
        {
            self.note_held(k);
        }
        self.agent_acted |= event.is_agent_event();
        Extracted {
            facts: std::mem::take(&mut self.facts),
            turn,
        }
    }

    /// The text a principal event stands for as the user's words, if the
    /// bundle accepts host principals and it is the conversation's first
    /// (or the same again); another is an anomaly and stands for nothing.
    fn principal_words(
        &mut self,
        k: EventIdx,
        accepted: bool,
        id: &str,
        claims: &BTreeMap<String, String>,
    ) -> Option<String> {
        let refuse = |why: String| ExtractionDiagnostic {
            event: k,
            kind: ExtractionProblem::PrincipalRefused,
            detail: why,
        };
        if !accepted {
            self.facts.diagnostics.push(refuse(
                "the bundle does not accept host principals (`host_principal: true`); the principal names nothing".to_owned(),
            ));
            return None;
        }
        match &self.host_principal {
            Some(first) if first != id => {
                self.facts.diagnostics.push(refuse(format!(
                    "a second principal {id:?} after {first:?}: one principal per conversation"
                )));
                return None;
            }
            Some(_) => return None,
            None => self.host_principal = Some(id.to_owned()),
        }
        let mut words = id.to_owned();
        for value in claims.values() {
            words.push('\n');
            words.push_str(value);
        }
        Some(words)
    }

    /// The dialogue facts of event `k`: the turn's cues, and every interned
    /// string named in a turn that was not looked for there yet — strings
    /// new at this event in every earlier turn, every string in a new turn.
    /// So when a value can first be an operand's, its mentions are facts.
    /// Returns a message's turn, tokenized as its cues were read.
    fn mentions(
        &mut self,
        k: EventIdx,
        event: &Event,
        lexicon: &Arc<Lexicon>,
        accepts_principal: bool,
    ) -> Option<Turn> {
        let known = self.interner.len();
        for index in self.values.len()..known {
            let Ok(raw) = u32::try_from(index) else {
                break;
            };
            let value = Symbol(raw);
            let text = self.interner.resolve(value);
            let read = ReadValue::new(text);
            let nameable = !read.is_empty() && read.len() <= MAX_VALUE_TOKENS;
            let identifier = identifier_word(text).filter(|_| nameable);
            let record = identifier.as_deref().is_some_and(is_record_word);
            for turn in self.turns.iter().filter(|t| !t.held_back_later.is_empty()) {
                let held = turn.held_back_later.iter().find(|(word, _)| {
                    identifier.as_deref() == Some(word.as_str()) || writes_word(text, &read, word)
                });
                if let Some(&(_, refused)) = held {
                    self.facts.passed_over.push(PassedOverFact {
                        value: Value::Str(value),
                        event: turn.event,
                        picked_another: refused,
                    });
                }
            }
            if text.bytes().any(|b| b.is_ascii_digit()) {
                self.digit_values.push(raw);
            }
            if let Some(word) = identifier {
                self.identifiers.insert(raw, word);
            }
            if nameable && index >= self.bundle_strings {
                self.read_phrases.add(value, read.clone());
            }
            let phrases = [self.phrases.as_ref(), &self.read_phrases];
            let answer_fields = self.answer_fields.as_ref();
            let on_its_own = |turn: &ReadTurn, starts: &[Placed<usize>]| {
                if lexicon.is_action_word(text) {
                    names_at(turn, &read, starts)
                } else {
                    names_on_its_own(turn, value, &read, phrases, answer_fields, starts)
                }
            };
            if nameable {
                // Agent turns that may name it only to describe a record:
                // (mention, turn position, the kinds described), settled
                // once the loop lets go of the turns.
                let mut descriptions: Vec<(usize, usize, SmallVec<[Symbol; 2]>)> = Vec::new();
                let keyed = self.index.turns_keyed(read.lookup(), self.turns.len());
                for (position, starts) in by_turn_or_value(&keyed) {
                    let Some(turn) = self.turns.get_mut(position) else {
                        continue;
                    };
                    if on_its_own(&turn.read, starts) {
                        // Only a value known when the turn was read can be
                        // named in its answer: what a yes picked is decided
                        // then, the same at every later event.
                        // An item a turn answered one by one is read
                        // against every value, known then or later: the
                        // call carrying it may be the first to.
                        let items = turn.items.as_deref();
                        if turn.speaker == Speaker::Agent
                            && (read.words() > 0 || self.aliases.contains_key(&value))
                            && let Some(described) =
                                described_kinds(&turn.read, &read, starts, &self.record_nouns)
                        {
                            descriptions.push((self.facts.mentions.len(), position, described));
                        }
                        if let Some(refused) = items.and_then(|items| items.holds_back(&read)) {
                            self.facts.passed_over.push(PassedOverFact {
                                value: Value::Str(value),
                                event: turn.event,
                                picked_another: refused,
                            });
                        }
                        let (segments, clauses, (first_place, last_place)) =
                            turn.segment_bits(&read, starts);
                        push_mention(
                            &mut self.facts,
                            MentionFact {
                                value: Value::Str(value),
                                event: turn.event,
                                speaker: turn.speaker,
                                record,
                                in_answer: items.is_some_and(|items| items.answers(&read)),
                                declined: declines_action(&turn.declined, text)
                                    || turn.keeps_out(text, &read),
                                action: lexicon.is_action_word(text),
                                implied: false,
                                segments,
                                clauses,
                                first_place,
                                last_place,
                            },
                        );
                        turn.named.push(value);
                        if turn.keeps(text) {
                            turn.described.push(value);
                        }
                        // Denied by the turn itself, or by the next turn
                        // when it is the user's denying what this one named.
                        let own = turn.disowns(text).then_some(turn.event);
                        let next = self
                            .turns
                            .get(position + 1)
                            .filter(|t| t.disowns_previous)
                            .map(|t| t.event);
                        self.facts
                            .disowned
                            .extend(own.into_iter().chain(next).map(|event| DisownFact {
                                value: Value::Str(value),
                                event,
                            }));
                    }
                }
                if !descriptions.is_empty() {
                    let kinds = self.record_kinds(value, &read, lexicon.is_action_word(text));
                    for (mention, position, described) in descriptions {
                        if describes_another_kind(&kinds, &described) {
                            if let Some(m) = self.facts.mentions.get_mut(mention) {
                                m.declined = true;
                            }
                            if let Some(turn) = self.turns.get_mut(position) {
                                turn.described.push(value);
                            }
                        }
                    }
                }
                self.index.add_value(read.lookup(), raw);
                let bits = if read.len() == 1 {
                    lexicon.action_bits(text)
                } else {
                    0
                };
                if bits != 0 {
                    self.action_values.push((raw, bits));
                    for turn in &self.turns {
                        if turn.named_actions & bits != 0
                            && turn.declined.is_empty()
                            && !turn.read.names_read(&read)
                        {
                            push_mention(
                                &mut self.facts,
                                MentionFact {
                                    value: Value::Str(value),
                                    event: turn.event,
                                    speaker: turn.speaker,
                                    record: false,
                                    in_answer: false,
                                    declined: false,
                                    action: true,
                                    implied: false,
                                    segments: 0,
                                    clauses: 0,
                                    first_place: 0,
                                    last_place: 0,
                                },
                            );
                        }
                    }
                }
            }
            self.values.push(nameable.then_some(read));
        }
        self.typed_mentions();
        // A host's principal stands for the user's words naming them: a
        // user turn with no cues (no yes, no refusal), read for mentions
        // only, never shown to a judge. A ticket is the user's statement
        // before the conversation: its turn is the user's, with no cue.
        let principal = match event {
            Event::Principal { id, claims } => {
                Some(self.principal_words(k, accepts_principal, id, claims)?)
            }
            _ => None,
        };
        let (speaker, text) = match (event, &principal) {
            (Event::User { text }, _) => (Speaker::User, text),
            (Event::Ticket { .. }, _) if self.agent_acted => return None,
            (Event::Ticket { text }, _) => (Speaker::Ticket, text),
            (Event::Agent { text }, _) => (Speaker::Agent, text),
            (Event::Principal { .. }, Some(words)) => (Speaker::User, words),
            _ => return None,
        };
        push_mention(
            &mut self.facts,
            MentionFact {
                value: Value::Str(self.empty),
                event: k,
                speaker,
                record: false,
                in_answer: false,
                declined: false,
                action: false,
                implied: true,
                segments: 0,
                clauses: 0,
                first_place: 0,
                last_place: 0,
            },
        );
        let text = readable_text(text);
        let text = text.as_ref();
        let (rendered, mut cues) = match event {
            Event::User { .. } | Event::Agent { .. } => {
                let role = match speaker {
                    Speaker::Agent => Role::Agent,
                    Speaker::User | Speaker::Ticket => Role::User,
                };
                let rendered = Turn::with_lexicon(k.0, role, text, lexicon.clone());
                let cues = turn_cues_of(&rendered, &mut self.asked);
                (Some(rendered), cues)
            }
            Event::Ticket { .. } => {
                let rendered =
                    Turn::with_lexicon(k.0, Role::User, ticket_text(text), lexicon.clone());
                (Some(rendered), TurnCues::default())
            }
            _ => (None, TurnCues::default()),
        };
        self.facts.turn = Some(TurnFact {
            event: k,
            speaker: match speaker {
                Speaker::Ticket => Speaker::User,
                other => other,
            },
            asks_decision: cues.asks_decision,
            asks_anything: cues.asks_anything,
            reply: match cues.reply {
                CueReply::Other => Reply::Other,
                CueReply::Affirms => Reply::Affirms,
                CueReply::Qualifies => Reply::Qualifies,
                CueReply::Withdraws => Reply::Withdraws,
                CueReply::Refuses => Reply::Refuses,
            },
            corrects: cues.corrects,
            weighs_actions: speaker == Speaker::Agent
                && cues.asks_decision
                && rendered.as_ref().is_some_and(Turn::weighs_actions),
            retracts: cues.retracts,
            by_item: !cues.answer_items.is_empty() && !cues.held_back_items.is_empty(),
        });
        let mut seen = SeenTurn::new(
            k,
            speaker,
            text,
            cues.picks_one,
            principal.is_some(),
            self.turns.last(),
        );
        seen.items = TurnItems::of(&cues);
        let amounts = std::mem::take(&mut cues.action_amounts).into_boxed_slice();
        seen.asks_decision = cues.asks_decision;
        if speaker == Speaker::Agent && cues.asks_decision {
            seen.segments = seen.read.token_segments().map(Box::new);
        }
        // The amounts the latest request for a decision names: a user
        // repeating one ("Yes, refuel 1 GB") gives none of their own.
        let requested = self
            .turns
            .iter()
            .rev()
            .find(|t| t.speaker == Speaker::Agent && t.asks_decision);
        let gives_own = |amount: &ValueToken| requested.is_none_or(|r| !r.read.has_amount(amount));
        if speaker == Speaker::Agent {
            seen.stated_amounts = amounts;
        } else if amounts.iter().any(gives_own) {
            // Every amount known so far that the user's own amounts leave
            // out; one known later is passed over as it is
            // ([`Extractor::typed_mentions`]).
            for (value, _) in &self.typed_values {
                if gives_another_amount(&amounts, value) {
                    self.facts.passed_over.push(PassedOverFact {
                        value: *value,
                        event: k,
                        picked_another: true,
                    });
                }
            }
            seen.given_amounts = amounts;
        }
        seen.set_aside = cues.set_aside.iter().map(ToString::to_string).collect();
        seen.kept.clone_from(&cues.kept);
        let named_actions = rendered.as_ref().map_or(0, Turn::action_bits);
        let mut named_here: Vec<u32> = Vec::new();
        // Only a request for a decision states values for an action.
        let asides = if speaker == Speaker::Agent && cues.asks_decision {
            seen.read.asides()
        } else {
            Vec::new()
        };
        // Where each value named here stands, when the turn has asides.
        let mut placed: Vec<(u32, Spans)> = Vec::new();

        let candidates = self.index.add_turn(&seen.read, self.turns.len());
        for (raw, starts) in by_turn_or_value(&candidates) {
            let Some(Some(read)) = usize::try_from(raw).ok().and_then(|i| self.values.get(i))
            else {
                continue;
            };
            let text = self.interner.resolve(Symbol(raw));
            let action = lexicon.is_action_word(text);
            let phrases = [self.phrases.as_ref(), &self.read_phrases];
            let named = if action {
                names_at(&seen.read, read, starts)
            } else {
                names_on_its_own(
                    &seen.read,
                    Symbol(raw),
                    read,
                    phrases,
                    &self.answer_fields,
                    starts,
                )
            };
            if named {
                let identifier = self.identifiers.get(&raw);
                named_here.push(raw);
                if !asides.is_empty() {
                    placed.push((raw, value_places(&seen.read, read, starts)));
                }
                let describes = speaker == Speaker::Agent
                    && (read.words() > 0 || self.aliases.contains_key(&Symbol(raw)))
                    && described_kinds(&seen.read, read, starts, &self.record_nouns).is_some_and(
                        |described| {
                            describes_another_kind(
                                &self.record_kinds(Symbol(raw), read, action),
                                &described,
                            )
                        },
                    );
                // What the turn keeps out of its action, named by an alias,
                // keeps its record out too.
                let kept = cues.keeps(text);
                if describes || kept {
                    seen.described.push(Symbol(raw));
                }
                let (segments, clauses, (first_place, last_place)) =
                    seen.segment_bits(read, starts);
                push_mention(
                    &mut self.facts,
                    MentionFact {
                        value: Value::Str(Symbol(raw)),
                        event: k,
                        speaker,
                        record: identifier.is_some_and(|w| is_record_word(w)),
                        in_answer: identifier.is_some_and(|w| cues.answer_records.contains(w))
                            || (identifier.is_none()
                                && cues
                                    .answer_records
                                    .iter()
                                    .any(|w| writes_word(text, read, w)))
                            || seen.items.as_ref().is_some_and(|items| items.answers(read))
                            || (action
                                && (cues.answers_action(text)
                                    || lexicon.action_bits(text) & cues.answer_action_bits != 0)),
                        declined: cues.declines(text) || kept || cues.sets_aside(read) || describes,
                        action,
                        implied: false,
                        segments,
                        clauses,
                        first_place,
                        last_place,
                    },
                );
                seen.named.push(Symbol(raw));
                if seen.disowns(text) {
                    self.facts.disowned.push(DisownFact {
                        value: Value::Str(Symbol(raw)),
                        event: k,
                    });
                }
            }
        }
        if speaker == Speaker::Agent && cues.asks_decision {
            for literal in self.context_literals(text, &named_here, lexicon) {
                self.decline_mention(k, speaker, &mut seen, literal);
            }
        }
        if speaker == Speaker::Agent {
            for raw in self.apposed_peers(&asides, &placed) {
                self.decline_mention(k, speaker, &mut seen, Symbol(raw));
            }
        }
        // A qualified or withdrawn reply agrees to nothing already; what
        // it weighs ("she might rather have a replacement") is no pick.
        if speaker == Speaker::User
            && !matches!(cues.reply, CueReply::Qualifies | CueReply::Withdraws)
        {
            self.gives_another_literal(k, &seen, text);
        }
        self.answered_records(k, speaker, &cues);
        seen.held_back_later = self.held_back(k, &cues);
        self.turn_items(k, &seen);
        // A request for a decision naming no action restates the latest
        // one, when that proposed one action ("Updated: 30 tablets at Maple
        // Grove. Confirm?" after "Shall I place the refill?"): it names
        // that action's words, as nobody said them.
        let restated = if speaker == Speaker::Agent && cues.asks_decision && named_actions == 0 {
            self.requested_actions
        } else {
            0
        };
        if restated.count_ones() == 1 {
            for &(raw, bits) in &self.action_values {
                if bits & restated != 0 {
                    push_mention(
                        &mut self.facts,
                        MentionFact {
                            value: Value::Str(Symbol(raw)),
                            event: k,
                            speaker,
                            record: false,
                            in_answer: false,
                            declined: false,
                            action: true,
                            implied: true,
                            segments: 0,
                            clauses: 0,
                            first_place: 0,
                            last_place: 0,
                        },
                    );
                }
            }
        }
        if speaker == Speaker::Agent && cues.asks_decision && named_actions != 0 {
            self.requested_actions = if cues.declined.is_empty() {
                named_actions
            } else {
                0
            };
        } else if speaker != Speaker::Agent && named_actions & !self.requested_actions != 0 {
            // The user asked for another action: no request is restated.
            self.requested_actions = 0;
        }
        // Another word of an action names the action's words a guard
        // looks for ("erase" for "wipe"), unless the turn names some action
        // only as what not to do: which one it declines is then not read.
        if named_actions != 0 && cues.declined.is_empty() {
            for &(raw, bits) in &self.action_values {
                if bits & named_actions != 0 && !named_here.contains(&raw) {
                    push_mention(
                        &mut self.facts,
                        MentionFact {
                            value: Value::Str(Symbol(raw)),
                            event: k,
                            speaker,
                            record: false,
                            in_answer: bits & cues.answer_action_bits != 0,
                            declined: false,
                            action: true,
                            implied: false,
                            segments: 0,
                            clauses: 0,
                            first_place: 0,
                            last_place: 0,
                        },
                    );
                }
            }
        }
        // A request for a decision on an action, while one record of a kind
        // is in play, refers to that record though it does not spell it
        // ("Shall I downgrade all passengers to basic economy?"), unless it
        // spells another record id of that record's kind, or a turn so far
        // named another record of the kind by a value written like one of
        // the record's aliases.
        self.note_alias_rivals(&seen.read);
        if speaker == Speaker::Agent
            && cues.asks_decision
            && named_actions != 0
            && cues.declined.is_empty()
        {
            for (entity, ids) in &self.in_play {
                if let [id] = ids.as_slice()
                    && !self.contested.contains(entity)
                    && !named_here.contains(&id.0)
                    && !self
                        .asked
                        .latest_names_another_record(self.interner.resolve(*id))
                {
                    let record = identifier_word(self.interner.resolve(*id))
                        .is_some_and(|w| is_record_word(&w));
                    push_mention(
                        &mut self.facts,
                        MentionFact {
                            value: Value::Str(*id),
                            event: k,
                            speaker,
                            record,
                            in_answer: false,
                            declined: false,
                            action: false,
                            implied: true,
                            segments: 0,
                            clauses: 0,
                            first_place: 0,
                            last_place: 0,
                        },
                    );
                }
            }
        }
        // "No, that isn't my account": what the turn before named.
        if seen.disowns_previous
            && let Some(previous) = self.turns.last()
        {
            self.facts
                .disowned
                .extend(previous.named.iter().map(|&value| DisownFact {
                    value: Value::Str(value),
                    event: k,
                }));
        }
        let typed = self.typed_keys.candidates(&seen.read);
        let candidates = by_turn_or_value(&typed).filter_map(|(i, starts)| {
            Some((self.typed_values.get(usize::try_from(i).ok()?)?, starts))
        });
        for ((value, read), starts) in candidates {
            if names_at(&seen.read, read, starts) {
                let (segments, clauses, (first_place, last_place)) =
                    seen.segment_bits(read, starts);
                push_mention(
                    &mut self.facts,
                    MentionFact {
                        value: *value,
                        event: k,
                        speaker,
                        record: false,
                        in_answer: false,
                        declined: seen.names_as_context(value),
                        action: false,
                        implied: false,
                        segments,
                        clauses,
                        first_place,
                        last_place,
                    },
                );
            }
        }
        seen.declined = std::mem::take(&mut cues.declined);
        seen.named_actions = named_actions;
        if speaker == Speaker::Agent && cues.asks_decision && !cues.proposal.is_empty() {
            self.proposal = Some(cues);
        }
        self.turns.push(seen);
        rendered
    }

    /// The values this event's mentions show a question offering beside
    /// another option, and the replies so far that picked the other; and,
    /// when the event is a turn (`turned`) of the user's, the values its
    /// question offered that it passed over ([`Choices`]).
    fn note_choices(&mut self, lexicon: &Lexicon, turned: bool) {
        let offered: Vec<(Value, EventIdx)> = self
            .facts
            .mentions
            .iter()
            // Actions offered side by side are weighed, not picked among
            // as values ([`TurnFact::weighs_actions`]).
            .filter(|m| m.speaker == Speaker::Agent && !m.implied && !m.action)
            .map(|m| (m.value, m.event))
            .collect();
        let mut passed = Vec::new();
        let turns = &self.turns;
        let turn = |at: usize| -> Option<ChoiceTurn<'_>> {
            turns.get(at).map(|t| ChoiceTurn {
                event: t.event,
                speaker: t.speaker,
                read: &t.read,
                picks_one: t.picks_one,
            })
        };
        for (value, event) in offered {
            let Ok(question) = turns.binary_search_by_key(&event, |t| t.event) else {
                continue;
            };
            if !turns.get(question).is_some_and(|t| t.offers_choice) {
                continue;
            }
            let read = match value {
                Value::Str(symbol) => usize::try_from(symbol.0)
                    .ok()
                    .and_then(|i| self.values.get(i))
                    .and_then(Option::as_ref),
                typed => self
                    .typed_values
                    .iter()
                    .find(|(v, _)| *v == typed)
                    .map(|(_, read)| read),
            };
            // A record is offered by its aliases too ("card ending 5046 or
            // card ending 8133").
            let aliases = self
                .aliases
                .iter()
                .filter(|&(_, record)| matches!(value, Value::Str(v) if *record == Some(v)))
                .filter_map(|(alias, _)| {
                    self.values
                        .get(usize::try_from(alias.0).ok()?)
                        .and_then(Option::as_ref)
                });
            for read in read.into_iter().chain(aliases) {
                self.choices
                    .named(lexicon, turn, question, value, read, &mut passed);
            }
        }
        if turned && let Some(reply) = turns.len().checked_sub(1) {
            self.choices.replied(lexicon, turn, reply, &mut passed);
        }
        self.facts.passed_over.extend(passed);
    }

    /// Notes the entities whose one record in play another record of the
    /// kind may stand beside: `text` names a value written like one of
    /// that record's aliases but another ("the card ending 1156" when the
    /// one card read ends in 5519; [`ReadTurn::names_alias_rival`]).
    fn note_alias_rivals(&mut self, read: &ReadTurn) {
        if self.aliases.is_empty() {
            return;
        }
        for (entity, ids) in &self.in_play {
            if let [id] = ids.as_slice()
                && !self.contested.contains(entity)
                && self.aliases.iter().any(|(alias, named)| {
                    *named == Some(*id) && read.names_alias_rival(self.interner.resolve(*alias))
                })
            {
                self.contested.insert(*entity);
            }
        }
    }

    /// The values a word of a reply names as a record: the values whose
    /// identifier word it is, or else those writing it as one of their
    /// words (`4d2214` of `crd_4d2214`), with the records a value among
    /// them is the alias of ("2630" of the card ending 2630).
    fn values_written_as(&self, word: &str) -> Vec<Symbol> {
        let by_id: Vec<Symbol> = self
            .identifiers
            .iter()
            .filter(|(_, w)| *w == word)
            .map(|(&raw, _)| Symbol(raw))
            .collect();
        if !by_id.is_empty() {
            return by_id;
        }
        let writes = |raw: u32| {
            let text = self.interner.resolve(Symbol(raw));
            let read = usize::try_from(raw).ok().and_then(|i| self.values.get(i));
            matches!(read, Some(Some(read)) if writes_word(text, read, word))
        };
        // A word holding a digit is written only in a value holding one.
        let written: Vec<Symbol> = if word.bytes().any(|b| b.is_ascii_digit()) {
            self.digit_values
                .iter()
                .copied()
                .filter(|&raw| writes(raw))
                .map(Symbol)
                .collect()
        } else {
            (0..self.values.len())
                .filter_map(|i| u32::try_from(i).ok())
                .filter(|&raw| writes(raw))
                .map(Symbol)
                .collect()
        };
        let records = written
            .iter()
            .filter_map(|alias| self.aliases.get(alias).copied().flatten());
        written.iter().copied().chain(records).collect()
    }

    /// The records a user's answer names ([`TurnCues::answer_records`]) are
    /// in that answer, whatever word named them: the number a card is
    /// named by, a word of its id, or a name the reader read as its id.
    /// Their mentions at the turn are marked so, and a record the turn
    /// names by no value of its own is mentioned as implied.
    fn answered_records(&mut self, k: EventIdx, speaker: Speaker, cues: &TurnCues) {
        if speaker != Speaker::User || cues.answer_records.is_empty() {
            return;
        }
        let mut records: Vec<Symbol> = cues
            .answer_records
            .iter()
            .flat_map(|word| self.values_written_as(word))
            .filter(|value| self.record_strings.contains_key(value))
            .collect();
        records.sort_unstable_by_key(|record| record.0);
        records.dedup();
        for record in records {
            let value = Value::Str(record);
            let mut found = false;
            // This turn's mentions are the latest added.
            for mention in self
                .facts
                .mentions
                .iter_mut()
                .rev()
                .take_while(|mention| mention.event == k)
            {
                if mention.value == value && mention.speaker == speaker {
                    mention.in_answer = true;
                    found = true;
                }
            }
            if !found {
                let identifier = self.identifiers.get(&record.0);
                push_mention(
                    &mut self.facts,
                    MentionFact {
                        value,
                        event: k,
                        speaker,
                        record: identifier.is_some_and(|w| is_record_word(w)),
                        in_answer: true,
                        declined: false,
                        action: false,
                        implied: true,
                        segments: 0,
                        clauses: 0,
                        first_place: 0,
                        last_place: 0,
                    },
                );
            }
        }
    }

    /// A user turn at `k` putting forward a literal of one of the bundle's
    /// enums that the latest request for a decision did not name ("Yes, go
    /// ahead with the minivan." to "Shall I change BK-40712 to the SUV
    /// class?") proposes it: every other literal of its enums the turn does
    /// not name is one the user did not agree to (passed over, as a pick of
    /// another option is). Put forward: named in a statement of the turn
    /// ([`puts_forward`]: no question, no negation, not someone's), and no
    /// value read for a
    /// record the request names, or for the one record of a kind in play
    /// when it names none ("yes, move me off compact" names the current
    /// class).
    /// The enum literals a request for a decision (`text`) names only as
    /// context, of those it names (`named`): where the request gives an
    /// argument's enum a literal that is not the current value of the
    /// records it is about — in a question naming an action
    /// ([`asking_action_sentences`]), or in a line labelled by the name of
    /// a parameter taking the enum ([`labelled_values`]: "- **New cabin:**
    /// economy") — that literal is the one it proposes, and every other
    /// literal of the enum it names, but the current value, describes what
    /// is or could be ("suv, minivan and full_size are available. To
    /// confirm: change BK-40788 from midsize to the suv class?" proposes
    /// suv only). Only a turn naming two literals of one enum is read.
    fn context_literals(&self, text: &str, named: &[u32], lexicon: &Lexicon) -> Vec<Symbol> {
        let literals: Vec<(Symbol, Symbol)> = self
            .enum_literals
            .iter()
            .filter(|(literal, of)| {
                named.contains(&literal.0) && self.argument_enums.iter().any(|(e, _)| e == of)
            })
            .copied()
            .collect();
        let several_of_one = literals
            .iter()
            .any(|(l, of)| literals.iter().any(|(l2, of2)| of2 == of && l2 != l));
        if !several_of_one {
            return Vec::new();
        }
        let reads: Vec<(Symbol, Symbol, ReadValue)> = literals
            .iter()
            .map(|&(literal, of)| (literal, of, ReadValue::new(self.interner.resolve(literal))))
            .collect();
        // The literals of `of` a text names, each by words no longer
        // literal it names holds ("economy" inside "basic economy" is not).
        let named_in = |text: &ReadTurn, of: Symbol| -> Vec<Symbol> {
            let spans: Vec<(Symbol, Vec<(usize, usize)>)> = reads
                .iter()
                .map(|(literal, _, read)| (*literal, text.spans(read)))
                .collect();
            reads
                .iter()
                .zip(&spans)
                .filter(|((_, e, _), _)| *e == of)
                .filter(|(_, (literal, own))| {
                    // Spans are (first token, token count).
                    own.iter().any(|&(at, len)| {
                        !spans.iter().any(|(other, theirs)| {
                            other != literal
                                && theirs.iter().any(|&(o_at, o_len)| {
                                    o_at <= at && at + len <= o_at + o_len && o_len > len
                                })
                        })
                    })
                })
                .map(|(_, (literal, _))| *literal)
                .collect()
        };
        let questions: Vec<ReadTurn> = asking_action_sentences(text, lexicon)
            .iter()
            .map(|q| ReadTurn::new(q))
            .collect();
        // A record's current value is never the call's new one, nor
        // context: a call may carry it as the value it keeps.
        let current =
            self.current_values(&named.iter().map(|&raw| Symbol(raw)).collect::<Vec<_>>());
        let mut stated: Vec<Symbol> = Vec::new();
        for (of, words) in &self.argument_enums {
            if !literals.iter().any(|(_, e)| e == of) {
                continue;
            }
            for question in &questions {
                stated.extend(named_in(question, *of));
            }
            // A labelled line gives the one literal it names besides the
            // current value ("Cabin: economy → business"); naming several
            // others, it gives none.
            let names: Vec<&str> = words.iter().map(String::as_str).collect();
            for value in labelled_values(text, &names) {
                let mut given = named_in(&ReadTurn::new(value), *of);
                given.retain(|literal| !current.contains(literal));
                if let [only] = given.as_slice() {
                    stated.push(*only);
                }
            }
        }
        stated.retain(|literal| !current.contains(literal));
        literals
            .iter()
            .filter(|(literal, of)| {
                !stated.contains(literal)
                    && !current.contains(literal)
                    && stated
                        .iter()
                        .any(|s| literals.iter().any(|(l, e)| l == s && e == of))
            })
            .map(|&(literal, _)| literal)
            .collect()
    }

    /// Marks the mention of `value` the turn at `k` made declined (named
    /// there, but not for the action), and the turn as describing it.
    fn decline_mention(
        &mut self,
        k: EventIdx,
        speaker: Speaker,
        seen: &mut SeenTurn,
        value: Symbol,
    ) {
        let named = Value::Str(value);
        if let Some(m) = self
            .facts
            .mentions
            .iter_mut()
            .find(|m| m.value == named && m.event == k && m.speaker == speaker)
        {
            m.declined = true;
        }
        if !seen.described.contains(&value) {
            seen.described.push(value);
        }
    }

    /// The current values (single-valued fields as last read) of the
    /// records a turn naming `named` is about: those it names by id or
    /// alias, or, naming none, the one record of each kind in play.
    fn current_values(&self, named: &[Symbol]) -> HashSet<Symbol> {
        let mut records: Vec<Symbol> = named
            .iter()
            .filter_map(|v| {
                if self.record_strings.contains_key(v) {
                    Some(*v)
                } else {
                    self.aliases.get(v).copied().flatten()
                }
            })
            .collect();
        if records.is_empty() {
            records = self
                .in_play
                .values()
                .filter_map(|ids| match ids.as_slice() {
                    [id] => Some(*id),
                    _ => None,
                })
                .collect();
        }
        records
            .iter()
            .filter_map(|record| self.current_strings.get(record))
            .flatten()
            .copied()
            .collect()
    }

    fn gives_another_literal(&mut self, k: EventIdx, seen: &SeenTurn, text: &str) {
        let is_literal = |v: &Symbol| self.enum_literals.iter().any(|(l, _)| l == v);
        if !seen.named.iter().any(is_literal) {
            return;
        }
        let Some(request) = self
            .turns
            .iter()
            .rev()
            .find(|t| t.speaker == Speaker::Agent && t.asks_decision)
        else {
            return;
        };
        let current = self.current_values(&request.named);
        let fresh: Vec<Symbol> = seen
            .named
            .iter()
            .copied()
            .filter(|v| is_literal(v) && !request.named.contains(v) && !current.contains(v))
            .collect();
        if fresh.is_empty() {
            return;
        }
        let enums: Vec<Symbol> = fresh
            .iter()
            .filter(|v| puts_forward(text, self.interner.resolve(**v)))
            .flat_map(|v| {
                self.enum_literals
                    .iter()
                    .filter(move |(l, _)| l == v)
                    .map(|&(_, of)| of)
            })
            .collect();
        let passed: Vec<PassedOverFact> = self
            .enum_literals
            .iter()
            .filter(|(literal, of)| enums.contains(of) && !seen.named.contains(literal))
            .map(|&(literal, _)| PassedOverFact {
                value: Value::Str(literal),
                event: k,
                picked_another: true,
            })
            .collect();
        self.facts.passed_over.extend(passed);
    }

    /// The records a user turn at `k` holds back (`TurnCues::held_back`):
    /// no yes of the turn is to a call carrying one, by its id, by an alias
    /// value of it, or by a string its fields were read as that no record
    /// the turn's answer names shares (a prescription's medication, not the
    /// store both are picked up at). A refused record's values refuse such a call. A
    /// record is found by its identifier word, or as a word of a value
    /// (`4d2214` of `crd_4d2214`). Returns the words no value known yet
    /// writes: a value known later is read against them
    /// ([`Extractor::mentions`]), as the call carrying it may be the first.
    fn held_back(&mut self, k: EventIdx, cues: &TurnCues) -> Vec<(String, bool)> {
        if cues.held_back.is_empty() {
            return Vec::new();
        }
        let ids_of = |word: &String| self.values_written_as(word);
        let later: Vec<(String, bool)> = cues
            .held_back
            .iter()
            .filter(|(word, _)| ids_of(word).is_empty())
            .cloned()
            .collect();
        let answered: Vec<Symbol> = cues.answer_records.iter().flat_map(ids_of).collect();
        let shared: HashSet<Symbol> = answered
            .iter()
            .flat_map(|id| self.record_strings.get(id).into_iter().flatten())
            .chain(&answered)
            .copied()
            .collect();
        let mut passed: Vec<PassedOverFact> = Vec::new();
        for (word, refused) in &cues.held_back {
            for id in ids_of(word) {
                let own = self.record_strings.get(&id).into_iter().flatten();
                for value in std::iter::once(&id).chain(own) {
                    if shared.contains(value)
                        || passed.iter().any(|p| p.value == Value::Str(*value))
                    {
                        continue;
                    }
                    passed.push(PassedOverFact {
                        value: Value::Str(*value),
                        event: k,
                        picked_another: *refused,
                    });
                }
                // An alias value ("the car 2BRT660") holds back its record;
                // one the answer names too ("Yes, extend BK-51004. Don't
                // touch 2BRT660.") leaves no yes to it.
                if let Some(record) = self.aliases.get(&id).copied().flatten()
                    && !passed.iter().any(|p| p.value == Value::Str(record))
                {
                    passed.push(PassedOverFact {
                        value: Value::Str(record),
                        event: k,
                        picked_another: *refused && !shared.contains(&record),
                    });
                }
            }
        }
        self.facts.passed_over.extend(passed);
        later
    }

    /// What the user turn just read (`seen`) answered item by item,
    /// read against the values known so far ([`TurnItems`]): each value it
    /// holds back, and each record whose fields were read as one (a
    /// prescription by its medication), is passed over (no yes of the turn
    /// is to a call carrying one); each value an answered item names, and
    /// each such record, is in its answer, though the turn does not spell
    /// it ("yes the metformin" refers to the prescription read as
    /// "metformin 1000 mg"). A value known only later is read against the
    /// turn when it is ([`Extractor::mentions`]).
    fn turn_items(&mut self, k: EventIdx, seen: &SeenTurn) {
        let Some(items) = seen.items.as_deref() else {
            return;
        };
        let mut held: Vec<(Symbol, bool)> = Vec::new();
        let mut answered: Vec<Symbol> = Vec::new();
        for (index, read) in self.values.iter().enumerate() {
            let Some(read) = read else { continue };
            let Ok(raw) = u32::try_from(index) else { break };
            if items.answers(read) {
                answered.push(Symbol(raw));
            } else if let Some(refused) = items.holds_back(read) {
                held.push((Symbol(raw), refused));
            }
        }
        // A record by the values its own fields were read as, not through
        // another record (a patron whose list holds a loan id); in symbol
        // order, so the facts come out the same on every run.
        let mut records: Vec<(&Symbol, &Vec<Symbol>)> = self.record_strings.iter().collect();
        records.sort_unstable_by_key(|(record, _)| record.0);
        let (mut held_records, mut answered_records) = (Vec::new(), Vec::new());
        for (record, strings) in records {
            let answers = answered.iter().any(|value| strings.contains(value));
            // A record whose fields hold both a held-back item and an
            // answered one (the account both meters are on) is the items'
            // common ground, neither held back nor answered by them.
            match held.iter().find(|(value, _)| strings.contains(value)) {
                Some(_) if answers => {}
                Some(&(_, refused)) => held_records.push((*record, refused)),
                None if answers => answered_records.push(*record),
                None => {}
            }
        }
        held.extend(held_records);
        answered.extend(answered_records);
        let mut passed: Vec<PassedOverFact> = Vec::new();
        for (value, refused) in held {
            if !passed.iter().any(|p| p.value == Value::Str(value)) {
                passed.push(PassedOverFact {
                    value: Value::Str(value),
                    event: k,
                    picked_another: refused,
                });
            }
        }
        self.facts.passed_over.extend(passed);
        for value in answered {
            if seen.named.contains(&value) {
                continue;
            }
            push_mention(
                &mut self.facts,
                MentionFact {
                    value: Value::Str(value),
                    event: k,
                    speaker: Speaker::User,
                    record: self
                        .identifiers
                        .get(&value.0)
                        .is_some_and(|w| is_record_word(w)),
                    in_answer: true,
                    declined: false,
                    action: false,
                    implied: true,
                    segments: 0,
                    clauses: 0,
                    first_place: 0,
                    last_place: 0,
                },
            );
        }
    }

    /// Takes this event's reads into the records in play and the alias
    /// values; returns the aliases it learned, as `(alias value, record)`.
    fn learn_records(&mut self) -> Vec<(Symbol, Symbol)> {
        let mut learned = Vec::new();
        for read in &self.facts.reads {
            if !read.is_list && read.values.is_empty() {
                continue;
            }
            let ids = self.in_play.entry(read.entity).or_default();
            if !ids.contains(&read.id) {
                ids.push(read.id);
                self.in_play_type
                    .entry(read.id)
                    .and_modify(|entity| *entity = Symbol(entity.0.min(read.entity.0)))
                    .or_insert(read.entity);
            }
            let strings = self.record_strings.entry(read.id).or_default();
            for value in &read.values {
                if let Value::Str(text) = value
                    && !strings.contains(text)
                {
                    strings.push(*text);
                    let fields = self.read_fields.entry(*text).or_default();
                    if !fields.contains(&(read.entity, read.field)) {
                        fields.push((read.entity, read.field));
                    }
                }
            }
            if let (false, [Value::Str(text)]) = (read.is_list, read.values.as_slice()) {
                let current = self.current_strings.entry(read.id).or_default();
                if !current.contains(text) {
                    current.push(*text);
                }
            }
            if !self.alias_fields.contains(&(read.entity, read.field)) {
                continue;
            }
            let [Value::Str(alias)] = read.values.as_slice() else {
                continue;
            };
            match self.aliases.get(alias) {
                None => {
                    self.aliases.insert(*alias, Some(read.id));
                    learned.push((*alias, read.id));
                }
                // Two records share the alias: it names neither from here
                // on (what it named before stays named).
                Some(Some(named)) if *named != read.id => {
                    self.aliases.insert(*alias, None);
                    learned.retain(|(a, _)| a != alias);
                }
                Some(_) => {}
            }
        }
        learned
    }

    /// A turn naming a record's alias ("the card ending 4821") names the
    /// record: every mention of an alias value this event added, and the
    /// earlier turns naming an alias learned at this event (`learned`),
    /// get a mention of its record.
    fn alias_mentions(&mut self, learned: &[(Symbol, Symbol)]) {
        if self.aliases.is_empty() {
            return;
        }
        let record_of = |interner: &Interner, id: Symbol| {
            identifier_word(interner.resolve(id)).is_some_and(|w| is_record_word(&w))
        };
        // An alias a turn names only to describe a record of another kind
        // ("your sneakers order") describes its record too.
        let describes = |event: EventIdx, alias: Symbol| {
            self.turns
                .binary_search_by_key(&event, |t| t.event)
                .ok()
                .and_then(|at| self.turns.get(at))
                .is_some_and(|turn| turn.described.contains(&alias))
        };
        let mut added: Vec<MentionFact> = Vec::new();
        for m in &self.facts.mentions {
            let Value::Str(alias) = m.value else {
                continue;
            };
            if let Some(Some(id)) = self.aliases.get(&alias) {
                added.push(MentionFact {
                    value: Value::Str(*id),
                    record: record_of(&self.interner, *id),
                    action: false,
                    declined: describes(m.event, alias),
                    ..*m
                });
            }
        }
        for &(alias, id) in learned {
            for turn in self.turns.iter().filter(|t| t.named.contains(&alias)) {
                let mention = MentionFact {
                    value: Value::Str(id),
                    event: turn.event,
                    speaker: turn.speaker,
                    record: record_of(&self.interner, id),
                    in_answer: false,
                    declined: turn.described.contains(&alias),
                    action: false,
                    implied: false,
                    segments: turn.segments.as_ref().map_or(0, |placing| {
                        if placing.segments.is_empty() {
                            0
                        } else {
                            UNPLACED_SEGMENT
                        }
                    }),
                    clauses: if turn.segments.is_some() {
                        UNPLACED_SEGMENT
                    } else {
                        0
                    },
                    first_place: if turn.segments.is_some() {
                        UNKNOWN_PLACE
                    } else {
                        0
                    },
                    last_place: if turn.segments.is_some() {
                        UNKNOWN_PLACE
                    } else {
                        0
                    },
                };
                if turn.speaker == Speaker::Ticket {
                    added.push(MentionFact {
                        speaker: Speaker::User,
                        ..mention
                    });
                }
                added.push(mention);
            }
        }
        // A record named otherwise too is named: its descriptions come last
        // and add only what nothing else named.
        added.sort_by_key(|mention| mention.declined);
        for mention in added {
            let same = |m: &&mut MentionFact| {
                m.value == mention.value && m.event == mention.event && m.speaker == mention.speaker
            };
            match self.facts.mentions.iter_mut().find(same) {
                // Named by its alias, the record is said, not only referred to.
                Some(reference) if !mention.declined => reference.implied &= mention.implied,
                Some(_) => {}
                None => self.facts.mentions.push(mention),
            }
        }
    }

    /// A request for a decision whose question names a record proposes
    /// that record, not the others of its kind the turn names elsewhere
    /// ("You have cards ending 4821 and 6610. Shall I freeze the card ending
    /// 6610?"): their mentions at the agent's turn `k` are marked declined,
    /// so the turn is no summary of an action on them. Kinds: the ids of
    /// one entity type read so far, and order-like record ids. A question
    /// names a record by its id, an alias, or a value no other record's
    /// fields were read as ("Shall I transfer sertraline 50 mg?"); a turn
    /// mentions a record by any of these, and a value several records'
    /// fields were read as mentions them all (a title of two formats): it
    /// is proposed when one of them is.
    fn mark_unproposed(&mut self, k: EventIdx, cues: &TurnCues) {
        let interner = &self.interner;
        // The one record whose fields were read as `value`, if one is.
        let owner = |value: Symbol| -> Option<Symbol> {
            let mut owners = self
                .record_strings
                .iter()
                .filter(|(_, strings)| strings.contains(&value))
                .map(|(record, _)| *record);
            let first = owners.next()?;
            owners.next().is_none().then_some(first)
        };
        let proposed = |id: Symbol| {
            cues.proposes(interner.resolve(id))
                || self.aliases.iter().any(|(alias, named)| {
                    *named == Some(id) && cues.proposes(interner.resolve(*alias))
                })
                || self
                    .record_strings
                    .get(&id)
                    .into_iter()
                    .flatten()
                    .any(|value| {
                        owner(*value) == Some(id) && cues.proposes(interner.resolve(*value))
                    })
        };
        let entity_of = |id: Symbol| {
            self.in_play
                .iter()
                .find(|(_, ids)| ids.contains(&id))
                .map(|(entity, _)| *entity)
        };
        // The records a mention at `k` stands for, each with its kind: a
        // record id itself, or the records whose fields were read as the
        // value ("Piranesi" for both formats of the title).
        let records_of = |m: &MentionFact| -> Vec<KindedRecord> {
            let Value::Str(id) = m.value else {
                return Vec::new();
            };
            if m.action || m.event != k || m.speaker != Speaker::Agent {
                return Vec::new();
            }
            match entity_of(id) {
                Some(entity) => vec![(Some(entity), id)],
                None if m.record => vec![(None, id)],
                None => {
                    let mut owners: Vec<KindedRecord> = self
                        .record_strings
                        .iter()
                        .filter(|(_, strings)| strings.contains(&id))
                        .filter_map(|(record, _)| Some((Some(entity_of(*record)?), *record)))
                        .collect();
                    owners.sort_unstable_by_key(|(_, record)| record.0);
                    owners
                }
            }
        };
        // Each mention with its records and those of them proposed (all of
        // them for a mention the turn implies).
        let mentioned: Vec<(usize, Vec<KindedRecord>, Vec<KindedRecord>)> = self
            .facts
            .mentions
            .iter()
            .enumerate()
            .filter_map(|(i, m)| {
                let records = records_of(m);
                let proposed_ones: Vec<KindedRecord> = records
                    .iter()
                    .copied()
                    .filter(|&(_, r)| m.implied || proposed(r))
                    .collect();
                (!records.is_empty()).then_some((i, records, proposed_ones))
            })
            .collect();
        // A mention none of whose records is proposed is context beside a
        // proposed record of one of its kinds, not one of its own: an
        // airport several flights and the reservation share proposes the
        // reservation, not the flights.
        for (i, records, proposed_ones) in &mentioned {
            let beside_proposed = mentioned.iter().any(|(_, _, others)| {
                others.iter().any(|other| {
                    !records.contains(other) && records.iter().any(|(kind, _)| *kind == other.0)
                })
            });
            if proposed_ones.is_empty()
                && beside_proposed
                && let Some(m) = self.facts.mentions.get_mut(*i)
            {
                m.declined = true;
            }
        }
    }

    /// The values the request for a decision at `k` names as the detail of
    /// another record it names. A value is a record's detail when, of the
    /// records the request names, only that one holds it (read in one of
    /// its fields), else when it stands only in that record's section of a
    /// plan laid out record by record: the lines from one naming that
    /// record alone, among the records of its type, to the next naming
    /// another ("For order #W4219264: … change the watch to item
    /// 2407258246. For order #W6729841: …"). In such a plan the air
    /// purifier of #W6729841 is no rival of the call on #W4219264.
    fn note_held(&mut self, k: EventIdx) {
        let stated = |m: &&MentionFact| m.event == k && m.speaker == Speaker::Agent && !m.declined;
        let entity_of = &self.in_play_type;
        let mut named: Vec<(Symbol, Symbol)> = self
            .facts
            .mentions
            .iter()
            .filter(stated)
            .filter_map(|m| match m.value {
                Value::Str(id) => entity_of.get(&id).map(|entity| (*entity, id)),
                _ => None,
            })
            .collect();
        named.sort_unstable_by_key(|&(entity, id)| (entity.0, id.0));
        named.dedup();
        // Only records of a type the request names two or more of lay out
        // a plan.
        let plan_types: Vec<Symbol> = named
            .windows(2)
            .filter_map(|pair| match pair {
                [(a, _), (b, _)] if a == b => Some(*a),
                _ => None,
            })
            .collect();
        named.retain(|(entity, _)| plan_types.contains(entity));
        if named.is_empty() {
            return;
        }
        // Only a record id or an enum literal can be a rival of a call's
        // value.
        let candidates: Vec<Symbol> = self
            .facts
            .mentions
            .iter()
            .filter(stated)
            .filter_map(|m| match m.value {
                Value::Str(value)
                    if entity_of.contains_key(&value)
                        || self.enum_literals.iter().any(|(l, _)| *l == value) =>
                {
                    Some(value)
                }
                _ => None,
            })
            .collect();
        let mut held = Vec::new();
        // The candidates no record holds, each with its own type.
        let mut unheld: Vec<(Symbol, Option<Symbol>)> = Vec::new();
        for value in candidates {
            // A record of a plan's type is one of its records, no detail.
            let own = entity_of.get(&value).copied();
            if named.iter().all(|&(entity, _)| Some(entity) == own) {
                continue;
            }
            let mut holders = named.iter().filter(|&&(entity, record)| {
                record != value
                    && Some(entity) != own
                    && self
                        .record_strings
                        .get(&record)
                        .is_some_and(|strings| strings.contains(&value))
            });
            match (holders.next(), holders.next()) {
                (Some(&owner), None) => held.push((value, owner)),
                _ => unheld.push((value, own)),
            }
        }
        if !unheld.is_empty() {
            let values: Vec<Symbol> = unheld.iter().map(|(value, _)| *value).collect();
            for (value, owner) in self.section_owners(k, &named, &values) {
                let own = unheld
                    .iter()
                    .find(|(v, _)| *v == value)
                    .and_then(|(_, own)| *own);
                if let Some((entity, record)) = owner
                    && record != value
                    && Some(entity) != own
                {
                    held.push((value, (entity, record)));
                }
            }
        }
        self.facts
            .held
            .extend(held.into_iter().map(|(value, (entity, record))| HeldFact {
                value: Value::Str(value),
                event: k,
                entity,
                record: Value::Str(record),
            }));
    }

    /// The record whose section of the agent's turn at `k` each of
    /// `values` stands in, when the turn lays out a plan over lines: each
    /// line belongs to the record of `named` (each once, of types named
    /// twice or more) it names alone among its type, else to the one the
    /// lines before it opened; a value belongs to a record when every line
    /// naming it (by itself or an alias) does. One pass over the turn.
    fn section_owners(
        &self,
        k: EventIdx,
        named: &[(Symbol, Symbol)],
        values: &[Symbol],
    ) -> Vec<(Symbol, Option<(Symbol, Symbol)>)> {
        let Some(turn) = self.turns.last().filter(|t| t.event == k) else {
            return Vec::new();
        };
        let lines = turn.read.token_lines();
        let last = lines.last().copied().unwrap_or(0);
        if last == 0 {
            return Vec::new();
        }
        // Every string to place: the records, the values, and the aliases
        // naming either, each as `(whose, spelling)`.
        let whose: Vec<Symbol> = named
            .iter()
            .map(|(_, r)| *r)
            .chain(values.iter().copied())
            .collect();
        let spellings: Vec<(Symbol, Symbol)> = whose
            .iter()
            .map(|&w| (w, w))
            .chain(self.aliases.iter().filter_map(|(&alias, named)| {
                named
                    .filter(|record| whose.contains(record))
                    .map(|record| (record, alias))
            }))
            .collect();
        let read = |symbol: Symbol| {
            usize::try_from(symbol.0)
                .ok()
                .and_then(|i| self.values.get(i))
                .and_then(Option::as_ref)
        };
        let placed: Vec<(Symbol, &ReadValue)> = spellings
            .iter()
            .filter_map(|&(w, spelling)| Some((w, read(spelling)?)))
            .collect();
        let reads: Vec<&ReadValue> = placed.iter().map(|(_, r)| *r).collect();
        let starts = turn.read.token_starts_of(&reads);
        let lines_of = |symbol: Symbol| -> Vec<u32> {
            let mut found: Vec<u32> = placed
                .iter()
                .zip(&starts)
                .filter(|((w, _), _)| *w == symbol)
                .flat_map(|(_, at)| at.iter().filter_map(|&at| lines.get(at).copied()))
                .collect();
            found.sort_unstable();
            found.dedup();
            found
        };
        // The records each line names.
        let mut by_line: Vec<Vec<(Symbol, Symbol)>> = vec![Vec::new(); last as usize + 1];
        for &(entity, record) in named {
            for line in lines_of(record) {
                if let Some(slot) = by_line.get_mut(line as usize) {
                    slot.push((entity, record));
                }
            }
        }
        // Each line's records, one per type.
        let mut owner: Vec<Vec<(Symbol, Symbol)>> = Vec::with_capacity(by_line.len());
        let mut open: Vec<(Symbol, Symbol)> = Vec::new();
        for here in &by_line {
            for &(entity, record) in here {
                let alone = here.iter().filter(|(e, _)| *e == entity).count() == 1;
                open.retain(|(e, _)| *e != entity);
                if alone {
                    open.push((entity, record));
                }
            }
            owner.push(open.clone());
        }
        values
            .iter()
            .map(|&value| {
                let mut found: Option<(Symbol, Symbol)> = None;
                let mut one = true;
                for line in lines_of(value) {
                    match owner.get(line as usize).map(Vec::as_slice) {
                        Some([only]) if found.is_none_or(|seen| seen == *only) => {
                            found = Some(*only);
                        }
                        _ => one = false,
                    }
                }
                (value, found.filter(|_| one))
            })
            .collect()
    }

    /// The mentions, in every turn so far, of the dates, amounts and counts
    /// this event's arguments and reads hold for the first time. A date is
    /// named as ISO, `05/17/2024`, `May 17`, `17 May 2024` or `May 17th`; an
    /// amount with or without `$` and thousands separators, and a count
    /// (an integer, which only `confirmed` reads) as a number equal to it
    /// ([`ReadTurn::names_read`]). Negative numbers are never named.
    fn typed_mentions(&mut self) {
        let values = self.facts.args.iter().map(|a| &a.value);
        let read = self.facts.reads.iter().flat_map(|r| &r.values);
        let fresh: Vec<Value> = values
            .chain(read)
            .copied()
            .filter(|v| match v {
                Value::Date(_) => true,
                Value::Amount(a) => a.0 >= 0,
                Value::Int(n) => *n >= 0,
                _ => false,
            })
            .filter(|v| self.typed_seen.insert(*v))
            .collect();
        for value in fresh {
            for turn in &self.turns {
                if gives_another_amount(&turn.given_amounts, &value) {
                    self.facts.passed_over.push(PassedOverFact {
                        value,
                        event: turn.event,
                        picked_another: true,
                    });
                }
            }
            let text = match value {
                Value::Date(d) => d.to_string(),
                Value::Amount(a) => a.to_string(),
                Value::Int(n) => n.to_string(),
                _ => continue,
            };
            let read = ReadValue::new(&text);
            let keyed = self.index.turns_keyed(read.lookup(), self.turns.len());
            for (position, starts) in by_turn_or_value(&keyed) {
                let Some(turn) = self.turns.get(position) else {
                    continue;
                };
                if names_at(&turn.read, &read, starts) {
                    let (segments, clauses, (first_place, last_place)) =
                        turn.segment_bits(&read, starts);
                    push_mention(
                        &mut self.facts,
                        MentionFact {
                            value,
                            event: turn.event,
                            speaker: turn.speaker,
                            record: false,
                            in_answer: false,
                            declined: turn.names_as_context(&value),
                            action: false,
                            implied: false,
                            segments,
                            clauses,
                            first_place,
                            last_place,
                        },
                    );
                }
            }
            let position = u32::try_from(self.typed_values.len()).unwrap_or(u32::MAX);
            self.typed_keys.add(read.lookup(), position);
            self.typed_values.push((value, read));
        }
    }
}

/// A turn as the mentions read it: its words, and for the user's, which of
/// the values it names it denies are theirs.
#[derive(Clone, Debug)]
struct SeenTurn {
    event: EventIdx,
    speaker: Speaker,
    read: ReadTurn,
    /// A user turn's ownership denials (none for a host's principal).
    disowning: Option<Disowning>,
    /// A user turn denying that what the turn before named is theirs ("No,
    /// that isn't my account"; a bare no to "Is that your account?").
    disowns_previous: bool,
    /// An agent turn asking whether something is the user's.
    asks_ownership: bool,
    /// The strings found named in it so far.
    named: Vec<Symbol>,
    /// Those of them an agent turn names only to describe a record of
    /// another kind ([`described_kinds`]), or only in asides beside another
    /// of their kind ([`Extractor::apposed_peers`]): what the turn states
    /// for its action is not among them.
    described: Vec<Symbol>,
    /// The actions the turn names only as what not to do ("don't cancel").
    declined: Vec<String>,
    /// What an agent turn asking for a decision set aside
    /// (`TurnCues::set_aside`): a value one of them names, known later, is
    /// no subject of its proposal either.
    set_aside: Vec<String>,
    /// What an agent turn asking for a decision says stays as it is
    /// (`TurnCues::kept`): a value named there, known then or later, is no
    /// subject of its proposal.
    kept: Vec<Vec<Word>>,
    /// The domain's actions the turn names by any of their words.
    named_actions: u16,
    /// An agent turn asking something and holding *or*: it may offer a
    /// value beside another option ([`Choices`]).
    offers_choice: bool,
    /// An agent turn asks which of the things it lays out to act on
    /// (`TurnCues::picks_one`).
    picks_one: bool,
    /// A user turn's items answered and held back
    /// (`TurnCues::answer_items`, `TurnCues::held_back_items`): a value
    /// known only later is read against them too.
    items: Option<Box<TurnItems>>,
    /// The records a user turn held back (`TurnCues::held_back`) that no
    /// value known then wrote, each with whether it refused them: a value
    /// writing one, known later, is passed over at the turn.
    held_back_later: Vec<(String, bool)>,
    /// The amounts an agent turn asking for a decision states for the
    /// action (`TurnCues::action_amounts`, canonical): none when it states
    /// none ([`SeenTurn::names_as_context`]).
    stated_amounts: Box<[ValueToken]>,
    /// The amounts a user turn gives an action it names ("yes, refund the
    /// $35 please"; `TurnCues::action_amounts`): any other amount is one
    /// it did not agree to. Kept only where one of them is the user's own,
    /// not one the request they answer named.
    given_amounts: Box<[ValueToken]>,
    /// An agent turn asking for a decision.
    asks_decision: bool,
    /// Such a turn's segment of each token, when it has several
    /// ([`ReadTurn::token_segments`]).
    segments: Option<Box<TokenSegments>>,
    /// Such a turn's amounts and where each starts, read when a mention
    /// first needs them.
    amount_places: std::cell::OnceCell<Vec<(ValueToken, usize)>>,
}

/// Whether `value` is an amount other than every one of `given` (a user
/// turn's amounts for the action), where it gives some: the turn agreed
/// to no call carrying it.
fn gives_another_amount(given: &[ValueToken], value: &Value) -> bool {
    let Value::Amount(amount) = value else {
        return false;
    };
    !given.is_empty()
        && amount_of(&amount.to_string()).is_none_or(|amount| !given.contains(&amount))
}

/// Whether the value `text` (read as `read`) writes the identifier `word`
/// as one of its words, or as a run of its letters and digits between
/// other characters (`4d2214` of `crd_4d2214`).
fn writes_word(text: &str, read: &ReadValue, word: &str) -> bool {
    // Most values do not hold the word's letters at all: an ASCII word is
    // looked for in the text first, without case.
    if word.is_ascii()
        && !text
            .as_bytes()
            .windows(word.len())
            .any(|run| run.eq_ignore_ascii_case(word.as_bytes()))
    {
        return false;
    }
    read.word_list().any(|w| w == word)
        || text
            .split(|c: char| !c.is_ascii_alphanumeric())
            .any(|part| part.eq_ignore_ascii_case(word))
}

/// The items a user turn answered one by one ([`SeenTurn::items`]).
#[derive(Clone, Debug)]
struct TurnItems {
    answered: Vec<String>,
    held_back: Vec<(String, bool)>,
}

impl TurnItems {
    /// Of a user turn's cues, when it answered items one by one.
    fn of(cues: &TurnCues) -> Option<Box<TurnItems>> {
        (!cues.answer_items.is_empty() || !cues.held_back_items.is_empty()).then(|| {
            Box::new(TurnItems {
                answered: cues.answer_items.clone(),
                held_back: cues.held_back_items.clone(),
            })
        })
    }

    /// Whether an answered item names the value read as `value`.
    fn answers(&self, value: &ReadValue) -> bool {
        TurnCues::names_item(self.answered.iter().map(String::as_str), value)
    }

    /// Whether the turn holds back the value read as `value`, and whether it
    /// refuses it: a held-back item names it and no answered item does.
    fn holds_back(&self, value: &ReadValue) -> Option<bool> {
        if self.answers(value) {
            return None;
        }
        self.held_back
            .iter()
            .find(|(item, _)| TurnCues::names_item([item.as_str()], value))
            .map(|&(_, refused)| refused)
    }
}

impl SeenTurn {
    /// Reads the turn at `event` (`picks_one`: it asks which of the things
    /// it lays out to act on; `principal`: a host's principal, which
    /// denies nothing), after the turn `previous`.
    fn new(
        event: EventIdx,
        speaker: Speaker,
        text: &str,
        picks_one: bool,
        principal: bool,
        previous: Option<&SeenTurn>,
    ) -> SeenTurn {
        let disowning = (speaker == Speaker::User && !principal).then(|| Disowning::new(text));
        let asked = previous.is_some_and(|p| p.speaker == Speaker::Agent && p.asks_ownership);
        let disowns_previous = disowning
            .as_ref()
            .is_some_and(|d| d.disowns_previous() || (d.answers_no() && asked));
        let read = ReadTurn::new(text);
        SeenTurn {
            event,
            speaker,
            // A question offers a choice, and so does a turn telling the
            // user to pick one ("Pick one and I'll raise it.").
            offers_choice: speaker == Speaker::Agent
                && (text.contains('?') || picks_one)
                && (!read.choice_marks().is_empty() || !read.option_lists().is_empty()),
            picks_one: speaker == Speaker::Agent && picks_one,
            read,
            disowns_previous,
            asks_ownership: speaker == Speaker::Agent && asks_ownership(text),
            disowning,
            named: Vec::new(),
            described: Vec::new(),
            declined: Vec::new(),
            set_aside: Vec::new(),
            kept: Vec::new(),
            named_actions: 0,
            items: None,
            held_back_later: Vec::new(),
            stated_amounts: Box::default(),
            given_amounts: Box::default(),
            asks_decision: false,
            segments: None,
            amount_places: std::cell::OnceCell::new(),
        }
    }

    /// The segments and the clauses where the turn spells the value read
    /// as `value` (found at `starts`), as [`MentionFact::segments`] and
    /// [`MentionFact::clauses`] bits, and its first and last places
    /// ([`MentionFact::first_place`]): none in a turn of one clause,
    /// [`UNPLACED_SEGMENT`] and [`UNKNOWN_PLACE`] where the places are not
    /// known.
    fn segment_bits<K>(&self, value: &ReadValue, starts: &[Placed<K>]) -> (u32, u32, (u32, u32)) {
        let Some(placing) = &self.segments else {
            return (0, 0, (0, 0));
        };
        let token_starts = || starts.iter().map(|&(_, at)| at).collect::<Option<Vec<_>>>();
        let places: Spans = if value.words() > 0 {
            value_places(&self.read, value, starts)
        } else if let (Lookup::Token(_), Some(at)) = (value.lookup(), token_starts()) {
            self.read.places_at(value, at).into_iter().collect()
        } else {
            let amounts = self.amount_places.get_or_init(|| self.read.amount_places());
            self.read.places_among(value, amounts).into_iter().collect()
        };
        let place_of = |at: usize| {
            u32::try_from(at)
                .ok()
                .and_then(|at| at.checked_add(1))
                .filter(|&place| place != UNKNOWN_PLACE)
                .unwrap_or(UNKNOWN_PLACE)
        };
        let first = places
            .iter()
            .map(|&(at, _)| at)
            .min()
            .map_or(UNKNOWN_PLACE, place_of);
        let last = places
            .iter()
            .map(|&(at, _)| at)
            .max()
            .map_or(UNKNOWN_PLACE, place_of);
        let bit =
            |of: &[u8], at: usize| of.get(at).map_or(UNPLACED_SEGMENT, |&s| 1 << u32::from(s));
        let several = !placing.segments.is_empty();
        let (segments, clauses) = places.into_iter().fold((0, 0), |(s, c), (at, _)| {
            let segment = if several {
                bit(&placing.segments, at)
            } else {
                0
            };
            (s | segment, c | bit(&placing.clauses, at))
        });
        if clauses == 0 {
            let segments = if several { UNPLACED_SEGMENT } else { 0 };
            (segments, UNPLACED_SEGMENT, (UNKNOWN_PLACE, UNKNOWN_PLACE))
        } else {
            (segments, clauses, (first, last))
        }
    }

    /// Whether the turn names the typed `value` only as
    /// context: an amount a summary names outside every sentence stating
    /// amounts for the action ("The fee is $45.00. I can waive $40.00 of
    /// it.") describes a record; it is no value the turn proposes.
    fn names_as_context(&self, value: &Value) -> bool {
        let Value::Amount(amount) = value else {
            return false;
        };
        !self.stated_amounts.is_empty()
            && amount_of(&amount.to_string())
                .is_none_or(|amount| !self.stated_amounts.contains(&amount))
    }

    /// Whether the turn denies that `value` (a string it names) is the
    /// user's.
    /// Whether the turn names `value` (read as `read`) only as what its
    /// request keeps out of the action: as what stays as it is, or among
    /// the things it set aside.
    fn keeps_out(&self, value: &str, read: &ReadValue) -> bool {
        self.keeps(value) || TurnCues::names_item(self.set_aside.iter().map(String::as_str), read)
    }

    /// Whether the turn names `value` only as what stays as it is.
    fn keeps(&self, value: &str) -> bool {
        TurnCues::spans_keep(&self.kept, value)
    }

    fn disowns(&self, value: &str) -> bool {
        self.disowning.as_ref().is_some_and(|d| d.disowns(value))
    }
}

/// The turns and the nameable values of a conversation by their
/// [`Lookup`] keys: [`ReadTurn::names_read`] can hold only for a turn
/// holding the value's key (any turn for a date), so a new value is tested
/// against those turns and a new turn against those values, not every pair;
/// and a value of words only where the turn holds its first word, so no
/// turn is read again along its length for a value.
/// Positions and symbols are kept ascending, so mentions come out in the
/// order a test of every pair would give.
#[derive(Clone, Debug, Default)]
struct MentionIndex {
    /// Turn positions (in [`Extractor::turns`]) by token, each with where
    /// the token stands in the turn, and by amount.
    turns_by_token: HashMap<ValueToken, TurnPositions>,
    turns_by_amount: HashMap<ValueToken, TurnPositions>,
    /// Value symbols by their first token, by their amount, and every date.
    values: ValuesByKey,
}

/// A turn or a value (`K`: a position or a symbol) found by a key, and
/// where that key stands in the turn: the token's position for a token;
/// `None` for an amount or a date, which are looked for by value, not by
/// place.
type Placed<K> = (K, Option<usize>);

/// `placed` (ascending by its turns or values) a turn or value at a time,
/// each with the places its key was found at.
fn by_turn_or_value<K: Copy + PartialEq>(
    placed: &[Placed<K>],
) -> impl Iterator<Item = (K, &[Placed<K>])> {
    placed
        .chunk_by(|a, b| a.0 == b.0)
        .filter_map(|chunk| Some((chunk.first()?.0, chunk)))
}

/// Values (by a `u32`: a symbol, or a position in a list) by their
/// [`Lookup`] keys: by first token, by canonical amount, and every date.
#[derive(Clone, Debug, Default)]
struct ValuesByKey {
    by_token: HashMap<ValueToken, ValueSymbols>,
    by_amount: HashMap<ValueToken, ValueSymbols>,
    dates: Vec<u32>,
}

impl ValuesByKey {
    /// Records a nameable value's key.
    fn add(&mut self, key: Lookup<'_>, value: u32) {
        let (map, key) = match key {
            Lookup::Token(token) => (&mut self.by_token, token),
            Lookup::Amount(amount) => (&mut self.by_amount, amount),
            Lookup::Date => {
                self.dates.push(value);
                return;
            }
            Lookup::Never => return,
        };
        map.entry(ValueToken::new(key)).or_default().push(value);
    }

    /// The values a turn holding `key` may name (besides every date).
    fn keyed(&self, key: Lookup<'_>) -> &[u32] {
        let found = match key {
            Lookup::Token(token) => self.by_token.get(token),
            Lookup::Amount(amount) => self.by_amount.get(amount),
            Lookup::Date | Lookup::Never => None,
        };
        found.map_or(&[], |values| values.as_slice())
    }

    /// The values `turn` may name, ascending, each with the places of the
    /// turn its key stands at ([`by_turn_or_value`]).
    fn candidates(&self, turn: &ReadTurn) -> Vec<Placed<u32>> {
        let mut candidates: Vec<Placed<u32>> =
            self.dates.iter().map(|&value| (value, None)).collect();
        for (key, at) in turn.lookup_keys() {
            candidates.extend(self.keyed(key).iter().map(|&value| (value, at)));
        }
        candidates.sort_unstable();
        candidates.dedup();
        candidates
    }
}

/// The turns holding one key, with where: most keys are in few turns, and a
/// conversation has a few thousand keys, so they are kept inline (a key
/// costs no allocation of its own: [`ValueToken`] holds a short token inline
/// too).
type TurnPositions = SmallVec<[Placed<usize>; 4]>;

/// The values keyed by one token (most keys key one value, if any).
type ValueSymbols = SmallVec<[u32; 2]>;

impl MentionIndex {
    /// The positions of the turns that may name a value keyed `key`, of the
    /// `turns` so far, ascending, each with the places its key stands at
    /// ([`by_turn_or_value`]).
    fn turns_keyed(&self, key: Lookup<'_>, turns: usize) -> Vec<Placed<usize>> {
        let keyed = |map: &HashMap<ValueToken, TurnPositions>, key: &str| {
            map.get(key).map(|p| p.to_vec()).unwrap_or_default()
        };
        match key {
            Lookup::Token(token) => keyed(&self.turns_by_token, token),
            Lookup::Amount(amount) => keyed(&self.turns_by_amount, amount),
            Lookup::Date => (0..turns).map(|turn| (turn, None)).collect(),
            Lookup::Never => Vec::new(),
        }
    }

    /// Records a nameable value's key.
    fn add_value(&mut self, key: Lookup<'_>, symbol: u32) {
        self.values.add(key, symbol);
    }

    /// Records the turn at `position`; returns the symbols of the values it
    /// may name, ascending, each with the places its key stands at.
    fn add_turn(&mut self, turn: &ReadTurn, position: usize) -> Vec<Placed<u32>> {
        for (key, at) in turn.lookup_keys() {
            let (turns, key) = match key {
                Lookup::Token(token) => (&mut self.turns_by_token, token),
                Lookup::Amount(amount) => (&mut self.turns_by_amount, amount),
                Lookup::Date | Lookup::Never => continue,
            };
            let positions = turns.entry(ValueToken::new(key)).or_default();
            // An amount the turn repeats is indexed once; a token at each
            // place.
            if positions.last() != Some(&(position, at)) {
                positions.push((position, at));
            }
        }
        self.values.candidates(turn)
    }
}

struct Extraction<'a> {
    bundle: &'a CompiledBundle,
    out: &'a mut Extractor,
}

impl Extraction<'_> {
    fn diagnose(&mut self, event: EventIdx, kind: ExtractionProblem, detail: String) {
        self.out.facts.diagnostics.push(ExtractionDiagnostic {
            event,
            kind,
            detail,
        });
    }

    fn call(&mut self, k: EventIdx, id: &str, tool: &str, args: &Json, requestor: Side) {
        // An id reused while its earlier call is open leaves a result with
        // that id answering either call: neither call's result is trusted.
        let still_open = self.out.open_calls.contains_key(id);
        if still_open {
            self.diagnose(
                k,
                ExtractionProblem::ReusedCallId,
                format!(
                    "call id {id:?} reused while the earlier call with that id is still open: a result with it answers neither"
                ),
            );
        } else if !self.out.seen_ids.insert(id.to_owned()) {
            self.diagnose(
                k,
                ExtractionProblem::ReusedCallId,
                format!("call id {id:?} was already used by an earlier call"),
            );
        }
        let declared = self.bundle.domain.tool(tool);
        // The side the bundle declares wins over the side the event claims:
        // an agent-side write is the agent's (gated) whoever claims to send
        // it, and an agent-side read the event attributes to the user is
        // not trusted to satisfy any agent step.
        let agent_side = declared.is_some_and(|t| t.side == Side::Agent);
        if requestor == Side::User
            && agent_side
            && declared.is_some_and(|t| t.kind != ToolKind::Write)
        {
            self.diagnose(
                k,
                ExtractionProblem::UntrustedSide,
                format!("{tool} is an agent-side tool; a call attributed to the user is not the agent's read"),
            );
            self.out.open_calls.insert(id.to_owned(), None);
            return;
        }
        // Dual control: the device is the user's; an agent's call of a
        // user-side tool is not trusted and reads nothing.
        if requestor == Side::Agent
            && self.out.control == Control::Dual
            && declared.is_some_and(|t| t.side == Side::User)
        {
            self.diagnose(
                k,
                ExtractionProblem::UntrustedSide,
                format!("{tool} is a user-side (device) tool; under dual control the agent only instructs the user to call it"),
            );
            self.out.open_calls.insert(id.to_owned(), None);
            return;
        }
        let symbol = self.out.interner.intern(tool);
        self.out.facts.call = Some(CallFact {
            event: k,
            tool: symbol,
            by_agent: requestor == Side::Agent || agent_side,
        });
        let open = (!still_open).then(|| (k, tool.to_owned(), args.clone()));
        self.out.open_calls.insert(id.to_owned(), open);
        let params = self.bundle.domain.tool(tool).map(|t| &t.params);
        let bundle = self.bundle;
        for (index, path) in bundle.arg_paths.iter().enumerate() {
            let Some(mut found) = select_args(&self.out.interner, args, path) else {
                continue;
            };
            let declared = params.and_then(|p| arg_type(&self.out.interner, p, path));
            let path_index = u32::try_from(index).unwrap_or(u32::MAX);
            // A path to a whole list argument (`args.passengers`) is a list too.
            let whole_list = !path.yields_list() && matches!(declared, Some(ValueType::List(_)));
            if whole_list {
                found = found
                    .first()
                    .and_then(|j| j.as_array())
                    .map(|items| items.iter().collect())
                    .unwrap_or_default();
            }
            let is_list = path.yields_list() || whole_list;
            let declared = match (whole_list, declared) {
                (true, Some(ValueType::List(inner))) => Some(*inner),
                (_, other) => other,
            };
            // Objects have no scalar value: their list counts, their elements don't.
            let scalar_elements = !matches!(declared, Some(ValueType::Object(_)));
            if is_list {
                self.out.facts.arg_lens.push(ArgLenFact {
                    call: k,
                    path: path_index,
                    len: u32::try_from(found.len()).unwrap_or(u32::MAX),
                });
            }
            for (elem, json) in found.into_iter().enumerate().filter(|_| scalar_elements) {
                match typed(&mut self.out.interner, json, declared.as_ref()) {
                    Ok(value) => self.out.facts.args.push(ArgFact {
                        call: k,
                        path: path_index,
                        elem: if is_list {
                            u32::try_from(elem).unwrap_or(u32::MAX)
                        } else {
                            SCALAR
                        },
                        value,
                    }),
                    Err((kind, why)) => self.diagnose(
                        k,
                        kind,
                        format!(
                            "argument {} of {tool}: {why}",
                            show_path(&self.out.interner, path)
                        ),
                    ),
                }
            }
        }
        self.bind(k, tool, args, None);
    }

    fn result(&mut self, k: EventIdx, id: &str, ok: bool, content: &Json) {
        let open = self.out.open_calls.remove(id);
        if matches!(open, Some(None)) {
            // The answer to an untrusted call: no facts (diagnosed at the call).
            return;
        }
        let Some((call, tool, args)) = open.flatten() else {
            self.diagnose(
                k,
                ExtractionProblem::OrphanResult,
                format!("result for unknown call id {id:?}"),
            );
            return;
        };
        self.out.facts.result = Some(ResultFact { event: k, call, ok });
        if !ok {
            return;
        }
        // The bundle outlives the extraction: its tool is borrowed, not
        // cloned, while the extraction writes facts.
        let bundle = self.bundle;
        let Some(def) = bundle.domain.tool(&tool) else {
            return;
        };
        if def.kind != ToolKind::Generic {
            let partial = self.partial(k, def, content, &args);
            for read in &def.reads {
                self.read(k, def, read, content, &args, partial);
            }
        }
        self.bind(k, &tool, &args, Some(content));
    }

    /// Bindings of the steps satisfied by this event: call-timed steps bind at
    /// the call, result-timed steps at the successful result.
    fn bind(&mut self, k: EventIdx, tool: &str, args: &Json, result: Option<&Json>) {
        let Some(symbol) = self.out.interner.get(tool) else {
            return;
        };
        for (index, step) in self.bundle.program.steps.iter().enumerate() {
            let applies = match step.timing {
                Timing::Call(t) => t == symbol && result.is_none(),
                Timing::Result(t) => t == symbol && result.is_some(),
                Timing::State => false,
            };
            if !applies {
                continue;
            }
            let bundle = self.bundle;
            let Some(binds) = bundle.step_binds.get(index) else {
                continue;
            };
            for binding in binds {
                // Borrowed from the event: only the id's text is copied.
                let text = match (&binding.source, result) {
                    (BindSource::Arg(path), _) => {
                        first_arg(&self.out.interner, args, path).and_then(id_text)
                    }
                    (BindSource::Result(path), Some(content)) => {
                        select_json(content, content, path)
                            .first()
                            .copied()
                            .and_then(id_text)
                    }
                    (BindSource::Result(_), None) => None,
                    (
                        BindSource::Key {
                            entity,
                            args: names,
                        },
                        _,
                    ) => {
                        let parts: Vec<&Json> = names.iter().filter_map(|n| args.get(n)).collect();
                        bundle
                            .domain
                            .entities
                            .get(entity)
                            .filter(|_| parts.len() == names.len())
                            .and_then(|e| composite_text(&parts, &e.key))
                    }
                };
                let Some(value) = text else {
                    self.diagnose(
                        k,
                        ExtractionProblem::MissingField,
                        format!(
                            "{} cannot bind its variable: value absent or not an id",
                            step.name
                        ),
                    );
                    continue;
                };
                let value = self.out.interner.intern(&value);
                if self.out.principal_mask & binding.var.mask() != 0 {
                    let first = *self.out.principal.entry(binding.var.0).or_insert(value);
                    if first != value {
                        // Someone else authenticated later in the same
                        // conversation: not a new principal.
                        continue;
                    }
                }
                self.out.facts.binds.push(BindFact {
                    step: StepId(u32::try_from(index).unwrap_or(u32::MAX)),
                    event: k,
                    var: binding.var,
                    value,
                });
            }
        }
    }

    /// Whether the result at `k` of `tool` (called with `args`) is a part
    /// of a list (see `bundle::model::PagesDef`): it lacks an id the list it
    /// must cover holds, or — that list unread — a limiting argument was
    /// passed. A part is diagnosed (`PartialRead`) with what is missing.
    fn partial(&mut self, k: EventIdx, tool: &Tool, content: &Json, args: &Json) -> bool {
        let Some(pages) = &tool.pages else {
            return false;
        };
        let returned: std::collections::BTreeSet<String> =
            select_json(content, content, &pages.records)
                .into_iter()
                .filter_map(id_text)
                .collect();
        let limited: Vec<&str> = pages
            .limits
            .iter()
            .filter(|l| args.get(l.as_str()).is_some_and(|v| !v.is_null()))
            .map(String::as_str)
            .collect();
        let listed = pages.against.as_ref().and_then(|a| {
            let id = args.get(&a.id_arg).and_then(id_text)?;
            let key = (a.entity.clone(), id, a.field.clone());
            self.out.lists.get(&key).map(|list| (key, list))
        });
        let why = match listed {
            Some(((entity, id, field), list)) => {
                let missing = list.iter().filter(|i| !returned.contains(*i)).count();
                (missing > 0).then(|| {
                    format!(
                        "{} returned {} of the {} records {entity}[{id}].{field} lists",
                        tool.name,
                        list.len() - missing,
                        list.len()
                    )
                })
            }
            None => (!limited.is_empty()).then(|| {
                let against = pages.against.as_ref().map_or(String::new(), |a| {
                    format!(" and {}.{} was not read", a.entity, a.field)
                });
                format!(
                    "{} was limited by `{}`{against}",
                    tool.name,
                    limited.join("`, `")
                )
            }),
        };
        let Some(why) = why else {
            return false;
        };
        self.diagnose(
            k,
            ExtractionProblem::PartialRead,
            format!(
                "{why}: a part proves nothing absent, so the lists gathered over its records are unknown; read the rest"
            ),
        );
        true
    }

    /// The facts one read spec of `tool`'s result at `k` gives. Of a part
    /// of a list (`partial`), the lists gathered over all its records read
    /// nothing known: a `Read` with no value, so a check concluding
    /// absence from them fails closed.
    fn read(
        &mut self,
        k: EventIdx,
        tool: &Tool,
        read: &ReadSpec,
        content: &Json,
        args: &Json,
        partial: bool,
    ) {
        let Some(entity) = self.bundle.domain.entities.get(&read.entity) else {
            return;
        };
        if let Some(text) = &read.text {
            self.read_text(k, tool, entity, text, content);
            return;
        }
        let records: Vec<&Json> = match &read.each {
            Some(each) => select_json(content, content, each),
            None => vec![content],
        };
        if records.is_empty() && read.each.is_none() {
            self.diagnose(
                k,
                ExtractionProblem::NotJson,
                format!("{} returned nothing readable", tool.name),
            );
        }
        for record in records {
            let id = if read.key.is_empty() {
                select_json(content, record, &read.id)
                    .first()
                    .and_then(|j| id_text(j))
            } else {
                let parts: Vec<&Json> = read
                    .key
                    .iter()
                    .filter_map(|part| match part {
                        KeyPart::Result(path) => {
                            select_json(content, record, path).first().copied()
                        }
                        KeyPart::Arg(name) => args.get(name),
                    })
                    .collect();
                (parts.len() == read.key.len())
                    .then(|| composite_text(&parts, &entity.key))
                    .flatten()
            };
            let Some(id) = id else {
                let kind = if content.is_object() || content.is_array() {
                    ExtractionProblem::MissingField
                } else {
                    ExtractionProblem::NotJson
                };
                self.diagnose(
                    k,
                    kind,
                    format!("{}: no {} id in the result", tool.name, read.entity),
                );
                continue;
            };
            let id_text = id;
            let id = self.out.interner.intern(&id_text);
            for (field, path) in &read.fields {
                let Some(ty) = entity.fields.get(field) else {
                    continue;
                };
                let field_sym = self.out.interner.intern(field);
                let is_list = matches!(ty, ValueType::List(_));
                if partial
                    && is_list
                    && path.selects_many()
                    && (path.from_root || read.each.is_none())
                {
                    self.out
                        .facts
                        .reads
                        .push(Read::unknown(entity.symbol, id, field_sym));
                    self.out
                        .lists
                        .remove(&(read.entity.clone(), id_text.clone(), field.clone()));
                    continue;
                }
                let found = select_json(content, record, path);
                if found.is_empty() && !(is_list && path.selects_many()) {
                    self.diagnose(
                        k,
                        ExtractionProblem::MissingField,
                        format!("{}: {}.{field} is absent", tool.name, read.entity),
                    );
                    continue;
                }
                let element = match ty {
                    ValueType::List(inner) => (**inner).clone(),
                    other => other.clone(),
                };
                let mut values = Vec::new();
                let mut failed = false;
                // A list field read through a path that selects one JSON list
                // takes that list's elements.
                let items: Vec<&Json> = match (is_list, found.as_slice()) {
                    (true, [Json::Array(items)]) if !path.selects_many() => items.iter().collect(),
                    _ => found,
                };
                for json in items {
                    let unquoted = read
                        .quoted_numbers
                        .then(|| unquote_number(json, &element))
                        .flatten();
                    let json = unquoted.as_ref().unwrap_or(json);
                    match typed(&mut self.out.interner, json, Some(&element)) {
                        Ok(v) => values.push(v),
                        Err((kind, why)) => {
                            failed = true;
                            self.diagnose(
                                k,
                                kind,
                                format!("{}: {}.{field}: {why}", tool.name, read.entity),
                            );
                        }
                    }
                }
                if failed || (!is_list && values.len() != 1) {
                    continue;
                }
                if self.out.tracks_list(&read.entity, field) {
                    let texts = values
                        .iter()
                        .filter_map(|v| match v {
                            Value::Str(s) => Some(self.out.interner.resolve(*s).to_owned()),
                            _ => None,
                        })
                        .collect();
                    self.out
                        .lists
                        .insert((read.entity.clone(), id_text.clone(), field.clone()), texts);
                }
                self.out.facts.reads.push(Read {
                    entity: entity.symbol,
                    id,
                    field: field_sym,
                    values,
                    is_list,
                });
            }
            for (field, keyed) in &read.key_fields {
                self.read_key_field(k, tool, (entity, id), field, keyed, (content, record));
            }
        }
    }

    /// A list field of composite ids, element `i` made of element `i` of
    /// every part's path; any part missing, mistyped or of another length
    /// reads nothing (the checks on the field fail closed).
    fn read_key_field(
        &mut self,
        k: EventIdx,
        tool: &Tool,
        (entity, id): (&crate::schema::Entity, Symbol),
        field: &str,
        keyed: &KeyField,
        (content, record): (&Json, &Json),
    ) {
        let Some(target) = self.bundle.domain.entities.get(&keyed.entity) else {
            return;
        };
        let columns: Vec<Vec<&Json>> = keyed
            .parts
            .iter()
            .map(|path| select_json(content, record, path))
            .collect();
        let len = columns.first().map_or(0, Vec::len);
        let mut values = Vec::with_capacity(len);
        for i in 0..len {
            let parts: Vec<&Json> = columns.iter().filter_map(|c| c.get(i).copied()).collect();
            let text = (parts.len() == columns.len() && columns.iter().all(|c| c.len() == len))
                .then(|| composite_text(&parts, &target.key))
                .flatten();
            let Some(text) = text else {
                self.diagnose(
                    k,
                    ExtractionProblem::WrongType,
                    format!(
                        "{}: {}.{field}: element {i} is not a {} id",
                        tool.name, entity.name, keyed.entity
                    ),
                );
                return;
            };
            values.push(Value::Str(self.out.interner.intern(&text)));
        }
        let field = self.out.interner.intern(field);
        self.out.facts.reads.push(Read {
            entity: entity.symbol,
            id,
            field,
            values,
            is_list: true,
        });
    }
}

/// The composite id of `parts` typed by `key`: each part's canonical text
/// (a date in ISO form however it was spelled), `None` when one does not fit.
fn composite_text(parts: &[&Json], key: &[ValueType]) -> Option<String> {
    let mut texts = Vec::with_capacity(parts.len());
    for (json, ty) in parts.iter().zip(key) {
        let text = match (ty, json) {
            (ValueType::Str | ValueType::Enum(_), Json::String(s)) => s.clone(),
            (ValueType::Date, Json::String(s)) => Date::parse(s).ok()?.to_string(),
            (ValueType::DateTime, Json::String(s)) => DateTime::parse(s).ok()?.to_string(),
            (ValueType::Int, Json::Number(n)) => n.as_i64()?.to_string(),
            (ValueType::Bool, Json::Bool(b)) => b.to_string(),
            _ => return None,
        };
        texts.push(text);
    }
    (texts.len() == key.len()).then(|| composite_id(&texts))
}

impl Extraction<'_> {
    /// A plain-text result (a device report): each field takes the value of
    /// its first pattern the text contains. A result that is not text (JSON)
    /// reads nothing: its fields stay unread and the checks on them fail
    /// closed.
    fn read_text(
        &mut self,
        k: EventIdx,
        tool: &Tool,
        entity: &crate::schema::Entity,
        text: &crate::schema::TextRead,
        content: &Json,
    ) {
        let Some(report) = content.as_str() else {
            self.diagnose(
                k,
                ExtractionProblem::NotJson,
                format!(
                    "{} returned structured data where a text report was expected",
                    tool.name
                ),
            );
            return;
        };
        let id = self.out.interner.intern(&text.id);
        for (field, patterns) in &text.fields {
            let Some(ty) = entity.fields.get(field) else {
                continue;
            };
            let hit = patterns.iter().find(|(needle, _)| match needle {
                Some(needle) => report.contains(needle.as_str()),
                None => true,
            });
            let Some((_, literal)) = hit else {
                continue;
            };
            let json = match ty {
                ValueType::Bool => literal
                    .parse::<bool>()
                    .map_or_else(|_| Json::String(literal.clone()), Json::Bool),
                _ => Json::String(literal.clone()),
            };
            match typed(&mut self.out.interner, &json, Some(ty)) {
                Ok(value) => {
                    let field_sym = self.out.interner.intern(field);
                    self.out.facts.reads.push(Read {
                        entity: entity.symbol,
                        id,
                        field: field_sym,
                        values: vec![value],
                        is_list: false,
                    });
                }
                Err((kind, why)) => self.diagnose(
                    k,
                    kind,
                    format!("{}: {}.{field}: {why}", tool.name, entity.name),
                ),
            }
        }
    }
}

/// The JSON values at `path` in `args` (several when the path has `[*]`).
fn select_args<'j>(interner: &Interner, args: &'j Json, path: &ArgPath) -> Option<Vec<&'j Json>> {
    if !path.yields_list() {
        // At most one value: walk without collecting, so the bundle's paths
        // that another tool's call does not have cost no allocation.
        return select_one_arg(interner, args, path).map(|json| vec![json]);
    }
    let mut current = vec![args];
    for step in &path.0 {
        let mut next = Vec::new();
        for json in current {
            match step {
                ArgStep::Key(k) => next.extend(json.get(interner.resolve(*k))),
                ArgStep::Index(i) => next.extend(json.get(*i as usize)),
                ArgStep::Each => next.extend(json.as_array().into_iter().flatten()),
            }
        }
        current = next;
    }
    let list = path.yields_list();
    // A list path over an absent list is absent, not empty.
    if current.is_empty() && !(list && select_list_exists(interner, args, path)) {
        return None;
    }
    Some(current)
}

/// The first JSON value at `path` in `args`.
fn first_arg<'j>(interner: &Interner, args: &'j Json, path: &ArgPath) -> Option<&'j Json> {
    if path.yields_list() {
        select_args(interner, args, path)?.first().copied()
    } else {
        select_one_arg(interner, args, path)
    }
}

/// The JSON value at `path`, a path without `[*]`, in `args`.
fn select_one_arg<'j>(interner: &Interner, args: &'j Json, path: &ArgPath) -> Option<&'j Json> {
    let mut json = args;
    for step in &path.0 {
        json = match step {
            ArgStep::Key(k) => json.get(interner.resolve(*k))?,
            ArgStep::Index(i) => json.get(*i as usize)?,
            ArgStep::Each => return None,
        };
    }
    Some(json)
}

fn select_list_exists(interner: &Interner, args: &Json, path: &ArgPath) -> bool {
    let mut json = args;
    for step in &path.0 {
        match step {
            ArgStep::Key(k) => match json.get(interner.resolve(*k)) {
                Some(j) => json = j,
                None => return false,
            },
            ArgStep::Index(i) => match json.get(*i as usize) {
                Some(j) => json = j,
                None => return false,
            },
            ArgStep::Each => return json.is_array(),
        }
    }
    true
}

/// The JSON values at a result path, from `root` (`$...`) or `current` (`.…`).
pub fn select_json<'j>(root: &'j Json, current: &'j Json, path: &JsonPath) -> Vec<&'j Json> {
    let mut selected = vec![if path.from_root { root } else { current }];
    for step in &path.steps {
        let mut next = Vec::new();
        for json in selected {
            match step {
                JsonStep::Key(k) => next.extend(json.get(k)),
                JsonStep::Index(i) => next.extend(json.get(*i)),
                JsonStep::EachItem => next.extend(json.as_array().into_iter().flatten()),
                JsonStep::EachValue => {
                    next.extend(json.as_object().into_iter().flat_map(|o| o.values()))
                }
            }
        }
        selected = next;
    }
    selected
}

/// An entity id as text: strings as they are, integers in decimal.
fn id_text(json: &Json) -> Option<String> {
    match json {
        Json::String(s) => Some(s.clone()),
        Json::Number(n) if n.is_i64() || n.is_u64() => Some(n.to_string()),
        _ => None,
    }
}

/// The declared type at `path` of a tool's parameters.
fn arg_type(
    interner: &Interner,
    params: &BTreeMap<String, ValueType>,
    path: &ArgPath,
) -> Option<ValueType> {
    let mut steps = path.0.iter();
    let Some(ArgStep::Key(first)) = steps.next() else {
        return None;
    };
    let mut ty = params.get(interner.resolve(*first))?.clone();
    for step in steps {
        ty = match (step, ty) {
            (ArgStep::Each | ArgStep::Index(_), ValueType::List(inner)) => *inner,
            (ArgStep::Key(k), ValueType::Object(fields)) => {
                fields.into_iter().find(|(f, _)| f == k)?.1
            }
            _ => return None,
        };
    }
    Some(ty)
}

type TypeError = (ExtractionProblem, String);

/// A quoted plain decimal (`"3.2"`, `"-12"`) as the JSON number it spells,
/// for an amount or integer field of a read with `quoted_numbers`; anything
/// else (separators, signs other than a leading `-`, exponents) stays a
/// string and is then a type mismatch.
fn unquote_number(json: &Json, ty: &ValueType) -> Option<Json> {
    let (Json::String(s), ValueType::Amount | ValueType::Int) = (json, ty) else {
        return None;
    };
    let digits = s.strip_prefix('-').unwrap_or(s);
    let (whole, fraction) = digits.split_once('.').unwrap_or((digits, ""));
    let plain = !whole.is_empty()
        && whole.bytes().all(|b| b.is_ascii_digit())
        && fraction.bytes().all(|b| b.is_ascii_digit())
        && !digits.ends_with('.');
    if !plain {
        return None;
    }
    serde_json::from_str::<Json>(s).ok().filter(Json::is_number)
}

/// Converts a JSON scalar to a typed value; without a declared type, the JSON
/// kind decides.
fn typed(
    interner: &mut Interner,
    json: &Json,
    declared: Option<&ValueType>,
) -> Result<Value, TypeError> {
    let wrong = |want: &str| {
        (
            ExtractionProblem::WrongType,
            format!("expected {want}, found {json}"),
        )
    };
    match (declared, json) {
        (Some(ValueType::Str | ValueType::Enum(_)) | None, Json::String(s)) => {
            Ok(Value::Str(interner.intern(s)))
        }
        (Some(ValueType::Str | ValueType::Enum(_)), _) => Err(wrong("a string")),
        (Some(ValueType::Int), Json::Number(n)) => match n.as_i64() {
            Some(i) => Ok(Value::Int(i)),
            None if n.is_u64() => Err((
                ExtractionProblem::Overflow,
                format!("{n} overflows an integer"),
            )),
            None => Err(wrong("an integer")),
        },
        (Some(ValueType::Amount), Json::Number(n)) | (None, Json::Number(n))
            if !matches!(declared, Some(ValueType::Int)) =>
        {
            if let (Some(i), None) = (n.as_i64(), declared) {
                return Ok(Value::Int(i));
            }
            let amount = match n.as_i64() {
                Some(i) => Amount::from_int(i).ok_or_else(|| {
                    (
                        ExtractionProblem::Overflow,
                        format!("{n} overflows an amount"),
                    )
                }),
                None => n.as_f64().ok_or_else(|| wrong("a number")).and_then(|f| {
                    Amount::from_f64(f).map_err(|e| (ExtractionProblem::Overflow, e.to_string()))
                }),
            };
            amount.map(Value::Amount)
        }
        (Some(ValueType::Bool) | None, Json::Bool(b)) => Ok(Value::Bool(*b)),
        (Some(ValueType::Date), Json::String(s)) => Date::parse(s)
            .map(Value::Date)
            .map_err(|e| (ExtractionProblem::WrongType, e.to_string())),
        (Some(ValueType::DateTime), Json::String(s)) => DateTime::parse(s)
            .map(Value::DateTime)
            .map_err(|e| (ExtractionProblem::WrongType, e.to_string())),
        (Some(ValueType::Int), _) => Err(wrong("an integer")),
        (Some(ValueType::Amount), _) => Err(wrong("an amount")),
        (Some(ValueType::Bool), _) => Err(wrong("a bool")),
        (Some(ValueType::Date | ValueType::DateTime), _) => Err(wrong("a date")),
        (Some(ValueType::Duration), _) => Err(wrong("a duration")),
        (Some(ValueType::List(_) | ValueType::Object(_)), _) | (None, _) => Err(wrong("a scalar")),
    }
}

fn show_path(interner: &Interner, path: &ArgPath) -> String {
    let mut out = String::from("args");
    for step in &path.0 {
        match step {
            ArgStep::Key(k) => {
                out.push('.');
                out.push_str(interner.resolve(*k));
            }
            ArgStep::Index(i) => out.push_str(&format!("[{i}]")),
            ArgStep::Each => out.push_str("[*]"),
        }
    }
    out
}

#[cfg(test)]
mod principal_tests {
    use super::*;
    use std::path::Path;

    fn mask_names(domain: &str) -> Vec<String> {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../bundles")
            .join(domain);
        let Ok(bundle) = crate::check_bundle(&dir) else {
            return vec!["bundle does not compile".to_owned()];
        };
        let mask = principal_mask(&bundle);
        bundle
            .variables
            .iter()
            .enumerate()
            .filter(|(i, _)| mask & (1u32 << i) != 0)
            .map(|(_, v)| v.name.clone())
            .collect()
    }

    #[test]
    fn the_principal_is_the_authenticated_user() {
        assert_eq!(mask_names("retail"), vec!["user".to_owned()]);
        assert_eq!(mask_names("airline"), vec!["user".to_owned()]);
    }
}

#[cfg(test)]
mod typed_mention_tests {
    use super::*;
    use serde_json::json;
    use std::path::Path;

    /// The dates and amounts of a call's arguments are named in the turns
    /// that spell them, before or after the call, whatever the spelling.
    #[test]
    fn dates_and_amounts_are_named_in_any_spelling() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../bundles/airline");
        let bundle = crate::check_bundle(&dir).unwrap_or_else(|p| panic!("{p}"));
        let agent = |text: &str| Event::Agent { text: text.into() };
        let events = vec![
            agent("HAT080 on May 28th and HAT076 on 23 May 2024, $1,234.50 in total."),
            Event::Call {
                id: "c1".into(),
                tool: "book_reservation".into(),
                args: json!({
                    "user_id": "u",
                    "flights": [
                        {"flight_number": "HAT080", "date": "2024-05-28"},
                        {"flight_number": "HAT076", "date": "2024-05-26"}
                    ],
                    "payment_methods": [{"payment_id": "p", "amount": 1234.5}],
                }),
                requestor: Side::Agent,
            },
            agent("To confirm: 2024-05-26, 05/28/2024, 1234.5 USD. Proceed?"),
        ];
        let trace = Trace {
            events,
            ..Trace::default()
        };
        let facts = extract(&bundle, &trace);
        let named = |value: Value| {
            let mut events: Vec<u32> = facts
                .mentions
                .iter()
                .filter(|m| m.value == value)
                .map(|m| m.event.0)
                .collect();
            events.sort_unstable();
            events
        };
        let date = |text| Value::Date(Date::parse(text).unwrap());
        assert_eq!(named(date("2024-05-28")), [0, 2]);
        assert_eq!(named(date("2024-05-26")), [2], "May 23 is another day");
        let amount = Value::Amount(Amount::parse("1234.5").unwrap());
        assert_eq!(named(amount), [0, 2]);
    }
}

#[cfg(test)]
mod held_back_tests {
    use super::*;
    use serde_json::json;
    use std::path::Path;

    fn retail() -> CompiledBundle {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../bundles/retail");
        crate::check_bundle(&dir).unwrap_or_else(|p| panic!("{p}"))
    }

    /// Whether reading `held` (a user's reply to a request for `two`) and
    /// then a lookup of `order` passes `order` over at the reply.
    fn passed_over_later(two: &str, held: &str, order: &str) -> bool {
        let bundle = retail();
        let mut x = Extractor::new(&bundle);
        let mut passed = Vec::new();
        let events = [
            Event::Agent { text: two.into() },
            Event::User { text: held.into() },
            Event::Call {
                id: "c1".into(),
                tool: "get_order_details".into(),
                args: json!({ "order_id": order }),
                requestor: Side::Agent,
            },
        ];
        for (k, event) in (0u32..).zip(&events) {
            passed.extend(x.event(&bundle, EventIdx(k), event).facts.passed_over);
        }
        let Some(value) = x.interner.get(order) else {
            return false;
        };
        passed
            .iter()
            .any(|p| p.value == Value::Str(value) && p.event == EventIdx(1))
    }

    /// A record a reply holds back that no value known then writes is
    /// passed over when a value writing it is first read (the call
    /// carrying it may be the first), by its identifier word or as a run of
    /// a value's letters and digits.
    #[test]
    fn a_record_held_back_before_it_is_read_is_passed_over_when_it_is() {
        assert!(passed_over_later(
            "Shall I cancel #W1234567 and #W7654321?",
            "Yes, cancel #W1234567. Please leave #W7654321 as it is.",
            "#W7654321",
        ));
        assert!(passed_over_later(
            "Shall I cancel crd_1c90846 and crd_4d22140?",
            "Yes, cancel crd_1c90846. Please leave crd_4d22140 as it is.",
            "crd_4d22140",
        ));
        // A record the reply says yes to is not.
        assert!(!passed_over_later(
            "Shall I cancel #W1234567 and #W7654321?",
            "Yes, cancel #W1234567. Please leave #W7654321 as it is.",
            "#W1234567",
        ));
    }
}

#[cfg(test)]
mod fixture_reads {
    use super::*;
    use std::path::Path;

    /// The facts of every event of a conversation with the fixture bundle
    /// `fixture` (`engine/tests/fixtures/<fixture>`): the agent's read
    /// `call` (tool, arguments) at event 0, its result `content` at 1, then
    /// `turns` from event 2 on; with the extractor, to resolve the values.
    pub(super) fn after_read(
        fixture: &str,
        call: (&str, Json),
        content: Json,
        turns: &[Event],
    ) -> (Extractor, Vec<EventFacts>) {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures")
            .join(fixture);
        let bundle = crate::check_bundle(&dir).unwrap_or_else(|p| panic!("{p}"));
        let mut x = Extractor::new(&bundle);
        let (tool, args) = call;
        let read = [
            Event::Call {
                id: "c1".into(),
                tool: tool.into(),
                args,
                requestor: Side::Agent,
            },
            Event::Result {
                id: "c1".into(),
                ok: true,
                content,
            },
        ];
        let facts = (0u32..)
            .zip(read.iter().chain(turns))
            .map(|(k, event)| x.event(&bundle, EventIdx(k), event).facts)
            .collect();
        (x, facts)
    }
}

#[cfg(test)]
mod description_tests {
    use super::fixture_reads::after_read;
    use super::*;
    use serde_json::json;

    /// The item ids the agent's `request` (event 2) names, each with
    /// whether it names it only to describe a record of another kind
    /// (declined), after a read of grocery order GR-31502 holding oat milk
    /// (itm_6101) and bananas (itm_6114).
    fn item_mentions(request: &str) -> Vec<(String, bool)> {
        let (x, facts) = after_read(
            "grocery",
            ("get_order", json!({ "order_id": "GR-31502" })),
            json!({
                "order_id": "GR-31502", "customer_id": "cus_7214", "status": "placed",
                "delivery_date": "2026-03-14",
                "items": [
                    {"item_id": "itm_6101", "name": "Oatly Oat Milk", "price": 3.49},
                    {"item_id": "itm_6114", "name": "Organic Bananas", "price": 1.99}
                ]
            }),
            &[Event::Agent {
                text: request.into(),
            }],
        );
        request_mentions(&x, &facts, "itm_")
    }

    /// The values starting with `prefix` that the request at event 2
    /// names, each with whether the mention is declined, sorted.
    fn request_mentions(x: &Extractor, facts: &[EventFacts], prefix: &str) -> Vec<(String, bool)> {
        let mut named: Vec<(String, bool)> = facts
            .iter()
            .flat_map(|f| &f.mentions)
            .filter(|m| m.event == EventIdx(2))
            .filter_map(|m| match m.value {
                Value::Str(s) if x.interner.resolve(s).starts_with(prefix) => {
                    Some((x.interner.resolve(s).to_owned(), m.declined))
                }
                _ => None,
            })
            .collect();
        named.sort();
        named
    }

    /// An item named to say which order is no item the request acts on;
    /// the item it acts on, and an item named on its own, are.
    #[test]
    fn an_item_describing_its_order_is_not_what_the_request_acts_on() {
        let remove = |text: &str| item_mentions(text);
        assert_eq!(
            remove(
                "On the order with the Organic Bananas (GR-31502), I'll remove the Oatly Oat Milk. Shall I proceed?"
            ),
            [
                ("itm_6101".to_owned(), false),
                ("itm_6114".to_owned(), true)
            ],
        );
        assert_eq!(
            remove("Shall I remove the Oatly Oat Milk from your Organic Bananas order?"),
            [
                ("itm_6101".to_owned(), false),
                ("itm_6114".to_owned(), true)
            ],
        );
        assert_eq!(
            remove("Shall I remove the Oatly Oat Milk and the Organic Bananas from your order?"),
            [
                ("itm_6101".to_owned(), false),
                ("itm_6114".to_owned(), false)
            ],
        );
        // Named to describe the order and again on its own: it is named.
        assert_eq!(
            remove("From your Organic Bananas order, shall I remove the Organic Bananas?"),
            [("itm_6114".to_owned(), false)],
        );
    }

    /// An item a request names by its name only as what stays as it is is
    /// no item it acts on, by its name or its id.
    #[test]
    fn an_item_the_request_keeps_by_its_name_is_not_acted_on() {
        assert_eq!(
            item_mentions(
                "I'll remove the Oatly Oat Milk (itm_6101) from GR-31502. The Organic Bananas \
                 stay in the order. Shall I proceed?"
            ),
            [
                ("itm_6101".to_owned(), false),
                ("itm_6114".to_owned(), true)
            ],
        );
        assert_eq!(
            item_mentions(
                "I'll remove the Oatly Oat Milk and the Organic Bananas from GR-31502. Shall I \
                 proceed?"
            ),
            [
                ("itm_6101".to_owned(), false),
                ("itm_6114".to_owned(), false)
            ],
        );
    }

    /// A card's last four digits before another entity's record noun
    /// ("your 4242 parcel") say which parcel, not which card pays.
    #[test]
    fn an_alias_of_digits_describes_a_record_of_another_kind() {
        let (x, facts) = after_read(
            "parcel",
            ("get_customer", json!({ "customer_id": "cus_3307" })),
            json!({
                "customer_id": "cus_3307", "email": "lena@example.com", "postcode": "02139",
                "parcels": ["PX-30430"],
                "payment_methods": [
                    {"id": "pm_11", "kind": "credit_card", "last_four": "4242"},
                    {"id": "pm_12", "kind": "paypal"}
                ]
            }),
            &[Event::Agent {
                text: "I'll change the speed of PX-30430 - your 4242 parcel - to next_day, \
                       paid with your PayPal (pm_12). Shall I proceed?"
                    .into(),
            }],
        );
        assert_eq!(
            request_mentions(&x, &facts, "pm_"),
            [("pm_11".to_owned(), true), ("pm_12".to_owned(), false)]
        );
    }

    /// The loan ids the agent's `request` (event 2) names, by id or title,
    /// each with whether it is named only in an aside about another loan
    /// (declined), after a read of a patron's loans Dune (LN-48210) and
    /// Circe (LN-48233).
    fn loan_mentions(request: &str) -> Vec<(String, bool)> {
        let (x, facts) = after_read(
            "library",
            ("get_patron", json!({ "card_number": "2900451" })),
            json!({
                "card_number": "2900451", "name": "Ana Ferreira", "hold_count": 0,
                "loans": [
                    {"loan_id": "LN-48210", "title": "Dune", "format": "print",
                     "due": "2026-03-20", "overdue_days": 0, "held": false},
                    {"loan_id": "LN-48233", "title": "Circe", "format": "print",
                     "due": "2026-03-07", "overdue_days": 3, "held": false}
                ],
                "holds": []
            }),
            &[Event::Agent {
                text: request.into(),
            }],
        );
        request_mentions(&x, &facts, "LN-")
    }

    /// A loan named in an aside saying which book another loan is, is no
    /// loan the request acts on; named on its own too, or beside the other
    /// in the request itself, it is.
    #[test]
    fn a_record_named_in_an_aside_about_another_of_its_kind_is_not_acted_on() {
        let renew = |text: &str| loan_mentions(text);
        let named = |declined_dune: bool| {
            [
                ("LN-48210".to_owned(), declined_dune),
                ("LN-48233".to_owned(), false),
            ]
        };
        assert_eq!(
            renew(
                "I'll renew Circe (LN-48233) - the book you checked out together with your Dune loan. Shall I renew it?"
            ),
            named(true)
        );
        assert_eq!(
            renew("Shall I renew Circe, which you borrowed the same day as LN-48210?"),
            named(true)
        );
        assert_eq!(
            renew("Shall I renew Circe (the loan due before your Dune loan)?"),
            named(true)
        );
        // Both proposed, or the aside's loan named on its own too.
        assert_eq!(renew("Shall I renew Circe and Dune?"), named(false));
        assert_eq!(
            renew("Shall I renew Dune and Circe - the book you borrowed with Dune?"),
            named(false)
        );
        // A list going on is no aside.
        assert_eq!(
            renew("I can renew Circe, the Dune loan, and the rest. Shall I?"),
            named(false)
        );
    }
}

#[cfg(test)]
mod literal_tests {
    use super::fixture_reads::after_read;
    use super::*;
    use serde_json::json;

    /// The literals passed over at the user's reply (event 3) to `request`
    /// about booking BK-40712, a compact that could become a midsize, an
    /// SUV or a minivan (the rental fixture).
    fn passed_over(request: &str, reply: &str) -> Vec<String> {
        let (x, facts) = after_read(
            "rental",
            ("get_booking", json!({ "booking_id": "BK-40712" })),
            json!({
                "booking_id": "BK-40712", "customer_id": "cus_4410", "status": "reserved",
                "pickup_city": "Denver", "vehicle_class": "compact",
                "pickup_date": "2025-04-02", "return_date": "2025-04-09",
                "additional_drivers": [], "fees": []
            }),
            &[
                Event::Agent {
                    text: request.into(),
                },
                Event::User { text: reply.into() },
            ],
        );
        let mut literals: Vec<String> = facts
            .iter()
            .flat_map(|f| &f.passed_over)
            .filter(|p| p.event == EventIdx(3) && p.picked_another)
            .filter_map(|p| match p.value {
                Value::Str(s) => Some(x.interner.resolve(s).to_owned()),
                _ => None,
            })
            .collect();
        literals.sort();
        literals
    }

    const REQUEST: &str = "Shall I change booking BK-40712 to the SUV class?";

    /// A yes putting another literal of the call's enum forward passes over
    /// every other literal of it, however the literal is spelt.
    #[test]
    fn a_yes_naming_another_literal_passes_over_the_others() {
        let minivan = passed_over(REQUEST, "Yes, go ahead with the minivan.");
        assert_eq!(
            minivan,
            [
                "compact",
                "economy",
                "full_size",
                "midsize",
                "premium",
                "suv"
            ],
        );
        let full = passed_over(REQUEST, "Yes please. Full size.");
        assert!(full.contains(&"suv".to_owned()), "{full:?}");
        assert!(!full.contains(&"full_size".to_owned()), "{full:?}");
    }

    /// The request's own literals, the record's current value, and a
    /// literal named in a question, a negation or a qualified reply put
    /// nothing forward.
    #[test]
    fn what_the_user_does_not_put_forward_passes_nothing_over() {
        for reply in [
            "Yes, the SUV please.",
            "yes, move me off the compact",
            "Yes - or would the minivan be cheaper?",
            "Yes, but not the minivan.",
            "Hmm, maybe the minivan, let me think.",
            "Yes.",
        ] {
            assert_eq!(passed_over(REQUEST, reply), Vec::<String>::new(), "{reply}");
        }
    }
}

#[cfg(test)]
mod ticket_tests {
    use super::*;
    use serde_json::json;
    use std::path::Path;

    fn retail() -> CompiledBundle {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../bundles/retail");
        crate::check_bundle(&dir).unwrap_or_else(|p| panic!("{p}"))
    }

    fn lookup(id: &str) -> Event {
        Event::Call {
            id: id.into(),
            tool: "get_order_details".into(),
            args: json!({"order_id": "#W1234567"}),
            requestor: Side::Agent,
        }
    }

    /// A ticket's values are the user's, its turn no reply: a yes in it
    /// carries no consent cue.
    #[test]
    fn a_ticket_names_values_for_the_user_and_affirms_nothing() {
        let bundle = retail();
        let mut x = Extractor::new(&bundle);
        let ticket = Event::Ticket {
            text: "Cancel order #W1234567, no longer needed. Yes, go ahead.".into(),
        };
        let Extracted {
            facts: first,
            turn: rendered,
        } = x.event(&bundle, EventIdx(0), &ticket);
        let turn = first.turn.expect("a ticket is a turn");
        assert_eq!(turn.speaker, Speaker::User);
        assert!(turn.reply == Reply::Other && !turn.corrects && !turn.asks_decision);
        assert!(first.diagnostics.is_empty());
        assert_eq!(
            rendered.map(|t| (t.role, t.text)),
            Some((
                Role::User,
                "Ticket: Cancel order #W1234567, no longer needed. Yes, go ahead.".to_owned()
            ))
        );
        let call = x.event(&bundle, EventIdx(1), &lookup("c1")).facts;
        let order = x.interner.get("#W1234567").expect("the order id is read");
        for speaker in [Speaker::User, Speaker::Ticket] {
            assert!(
                call.mentions.iter().any(|m| m.value == Value::Str(order)
                    && m.event == EventIdx(0)
                    && m.speaker == speaker),
                "the ticket named the order for {speaker:?}: {:?}",
                call.mentions
            );
        }
    }

    /// After the agent's first event a ticket could be read as a reply: it
    /// is an anomaly and states nothing.
    #[test]
    fn a_ticket_after_the_agent_spoke_states_nothing() {
        let bundle = retail();
        let mut x = Extractor::new(&bundle);
        x.event(&bundle, EventIdx(0), &lookup("c1"));
        let Extracted {
            facts: late,
            turn: rendered,
        } = x.event(
            &bundle,
            EventIdx(1),
            &Event::Ticket {
                text: "Order #W1234567, yes.".into(),
            },
        );
        assert!(late.turn.is_none() && late.mentions.is_empty());
        assert_eq!(
            late.diagnostics.iter().map(|d| d.kind).collect::<Vec<_>>(),
            vec![ExtractionProblem::LateTicket]
        );
        assert!(ExtractionProblem::LateTicket.is_anomaly());
        assert!(rendered.is_none());
    }
}

#[cfg(test)]
mod mention_index_tests {
    use super::*;

    const WORDS: &[&str] = &[
        "basic",
        "economy",
        "no",
        "insurance",
        "$12.50",
        "May 22",
        "gift",
    ];
    const VALUES: &[&str] = &[
        "basic economy",
        "basic_economy",
        "economy",
        "no insurance",
        "insurance",
        "12.5",
        "2024-05-22",
        "gift_card",
        "gift",
    ];

    /// Every turn of up to four of [`WORDS`].
    fn turns() -> Vec<String> {
        let mut turns = vec![String::new()];
        let mut last = vec![String::new()];
        for _ in 0..4 {
            last = last
                .iter()
                .flat_map(|t| WORDS.iter().map(move |w| format!("{t} {w}")))
                .collect();
            turns.extend(last.iter().cloned());
        }
        turns
    }

    /// Whether `value` stands in `turn` somewhere outside every phrase of
    /// `phrases` holding it: the rule, by every position of each.
    fn on_its_own_by_every_position(
        turn: &ReadTurn,
        value: &ReadValue,
        phrases: &[ReadValue],
    ) -> bool {
        if value.words() == 0 {
            return turn.names_read(value);
        }
        turn.word_positions(value).into_iter().any(|start| {
            !phrases.iter().any(|phrase| {
                value.offset_in(phrase).is_some_and(|offset| {
                    start
                        .checked_sub(offset)
                        .is_some_and(|from| turn.word_positions(phrase).contains(&from))
                })
            })
        })
    }

    /// The index finds a value in a turn, read before or after it, exactly
    /// where reading every position of the turn does: for amounts, dates
    /// and values of one or more words, repeated, or held inside a phrase.
    #[test]
    fn the_index_names_a_value_where_every_position_does() {
        let reads: Vec<ReadValue> = VALUES.iter().map(|v| ReadValue::new(v)).collect();
        let mut phrases = Phrases::default();
        for (raw, read) in (0u32..).zip(&reads) {
            phrases.add(Symbol(raw), read.clone());
        }
        let phrase_reads: Vec<ReadValue> =
            reads.iter().filter(|r| r.words() >= 2).cloned().collect();
        let empty = Phrases::default();
        let mut checked = 0;
        for text in turns() {
            let turn = ReadTurn::new(&text);
            // The values known before the turn is read.
            let mut before = MentionIndex::default();
            for (raw, read) in (0u32..).zip(&reads) {
                before.add_value(read.lookup(), raw);
            }
            let candidates = before.add_turn(&turn, 0);
            let found: Vec<(u32, &[Placed<u32>])> = by_turn_or_value(&candidates).collect();
            // The turn read before the values are known.
            let mut after = MentionIndex::default();
            after.add_turn(&turn, 0);
            for (raw, read) in (0u32..).zip(&reads) {
                let starts_now = found
                    .iter()
                    .find(|(v, _)| *v == raw)
                    .map_or(&[][..], |(_, s)| *s);
                let keyed = after.turns_keyed(read.lookup(), 1);
                let starts_later = by_turn_or_value(&keyed)
                    .find(|&(position, _)| position == 0)
                    .map_or(&[][..], |(_, s)| s);
                let named = turn.names_read(read);
                let own = on_its_own_by_every_position(&turn, read, &phrase_reads);
                let symbol = Symbol(raw);
                assert_eq!(names_at(&turn, read, starts_now), named, "{text:?} {raw}");
                assert_eq!(names_at(&turn, read, starts_later), named, "{text:?} {raw}");
                assert_eq!(
                    names_on_its_own(&turn, symbol, read, [&phrases, &empty], &[], starts_now),
                    own,
                    "{text:?} {raw}"
                );
                assert_eq!(
                    names_on_its_own(&turn, symbol, read, [&empty, &phrases], &[], starts_later),
                    own,
                    "{text:?} {raw}"
                );
                checked += usize::from(named) + usize::from(own);
            }
        }
        // The rule holds somewhere, not only nowhere.
        assert!(checked > 1000, "{checked}");
    }
}
