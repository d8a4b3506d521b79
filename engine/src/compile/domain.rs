//! Compiles the domain file: enums, entity field types, tool parameters and
//! the result paths of read tools.

use std::collections::BTreeMap;

use turnstile_rules::ValueType;

use crate::bundle::model::{DomainFile, Sp, ToolKind};
use crate::compile::Ctx;
use crate::diag::{ProblemKind, RawProblem, did_you_mean, name_hint, with_article};
use crate::schema::{
    CompleteAgainst, ConfirmPiece, Domain, Entity, EnumDef, JsonPath, Pages, ReadSpec, Tool,
    TypeExpr, parse_confirmation, parse_json_path, parse_type,
};
use crate::source::FileId;

/// Compiles the domain file: enums, entity field types, tool parameters and
/// result paths, reporting every problem.
pub(crate) fn compile_domain(ctx: &mut Ctx<'_>, (file, def): &(FileId, DomainFile)) -> Domain {
    let file = *file;
    let mut domain = Domain::default();
    for (name, values) in &def.enums {
        let mut seen = Vec::new();
        for value in values.value() {
            if seen.contains(value) {
                ctx.report(
                    RawProblem::new(
                        ProblemKind::DuplicateId,
                        Some(values.loc(file)),
                        format!("enum `{name}` lists `{value}` twice"),
                    )
                    .help("each literal appears once"),
                );
            }
            seen.push(value.clone());
            ctx.interner.intern(value);
        }
        if seen.is_empty() {
            ctx.report(RawProblem::new(
                ProblemKind::BadType,
                Some(values.loc(file)),
                format!("enum `{name}` has no values"),
            ));
        }
        let symbol = ctx.interner.intern(name);
        domain.enums.insert(
            name.clone(),
            EnumDef {
                name: name.clone(),
                symbol,
                values: seen,
            },
        );
    }
    for (name, entity) in &def.entities {
        let fields = entity
            .fields
            .iter()
            .filter_map(|(field, ty)| {
                ctx.interner.intern(field);
                resolve_type(ctx, &domain, ty, file).map(|t| (field.clone(), t))
            })
            .collect();
        let key = entity
            .key
            .iter()
            .filter_map(|ty| resolve_type(ctx, &domain, ty, file))
            .collect::<Vec<_>>();
        if let Some(list) = key.iter().position(|t| matches!(t, ValueType::List(_)))
            && let Some(sp) = entity.key.get(list)
        {
            ctx.report(RawProblem::new(
                ProblemKind::BadType,
                Some(sp.loc(file)),
                format!("a part of `{name}`'s key is a list; each part is one value"),
            ));
        }
        let aliases = entity_aliases(ctx, name, entity, &fields, file);
        let symbol = ctx.interner.intern(name);
        domain.entities.insert(
            name.clone(),
            Entity {
                name: name.clone(),
                symbol,
                fields,
                key,
                aliases,
                nouns: record_nouns(name, entity.nouns.as_deref()),
            },
        );
    }
    for tool in &def.tools {
        let name = tool.name.value();
        if domain.tools.contains_key(name) {
            ctx.report(
                RawProblem::new(
                    ProblemKind::DuplicateId,
                    Some(tool.name.loc(file)),
                    format!("tool `{name}` is declared twice"),
                )
                .label("second declaration"),
            );
            continue;
        }
        let params: BTreeMap<String, ValueType> = tool
            .params
            .iter()
            .filter_map(|(param, ty)| {
                ctx.interner.intern(param);
                resolve_type(ctx, &domain, ty, file).map(|t| (param.clone(), t))
            })
            .collect();
        let kind = *tool.kind.value();
        if kind == ToolKind::Generic && !tool.reads.is_empty() {
            ctx.report(
                RawProblem::new(
                    ProblemKind::UnexpectedAttribute,
                    Some(tool.kind.loc(file)),
                    format!("tool `{name}` declares `reads` but is a generic tool"),
                )
                .help("only the results of read and write tools (the domain's own API) are trusted as facts"),
            );
        }
        let reads = tool
            .reads
            .iter()
            .filter_map(|read| compile_read(ctx, &domain, read, &params, file))
            .collect();
        let confirmation = tool
            .confirmation
            .as_ref()
            .and_then(|template| compile_confirmation(ctx, name, template, &params, file));
        let pages = tool
            .pages
            .as_ref()
            .and_then(|pages| compile_pages(ctx, &domain, pages, &params, file));
        let symbol = ctx.interner.intern(name);
        domain.tools.insert(
            name.clone(),
            Tool {
                name: name.clone(),
                symbol,
                side: *tool.side.value(),
                kind,
                params,
                reads,
                after: tool.after.iter().map(|t| t.value().clone()).collect(),
                phrases: tool.phrases.iter().map(|p| p.to_lowercase()).collect(),
                actions: if kind == ToolKind::Write {
                    super::words::action_words(tool)
                } else {
                    Vec::new()
                },
                confirmation,
                pages,
            },
        );
    }
    // Prerequisites name tools declared anywhere in the file.
    for tool in &def.tools {
        for needed in &tool.after {
            if !domain.tools.contains_key(needed.value()) {
                ctx.report(
                    RawProblem::new(
                        ProblemKind::UnknownTool,
                        Some(needed.loc(file)),
                        format!(
                            "unknown tool `{}` in `after` of `{}`",
                            needed.value(),
                            tool.name.value()
                        ),
                    )
                    .help("`after` lists tools this domain declares"),
                );
            }
        }
    }
    domain
}

/// The nouns people call a record of the entity `name` by, singular: those
/// it declares (`nouns:`), else its name when it is one word ("order"; no
/// noun for `payment_method`).
pub(super) fn record_nouns(name: &str, declared: Option<&[String]>) -> Vec<String> {
    match declared {
        Some(nouns) => nouns.to_vec(),
        None if !name.contains('_') => vec![name.to_owned()],
        None => Vec::new(),
    }
}

/// An entity's aliases: each a declared `string` field, each once; the
/// valid ones, after reporting the rest.
fn entity_aliases(
    ctx: &mut Ctx<'_>,
    entity: &str,
    def: &crate::bundle::model::EntityDef,
    fields: &BTreeMap<String, ValueType>,
    file: FileId,
) -> Vec<String> {
    let mut aliases: Vec<String> = Vec::new();
    for alias in &def.aliases {
        let field = alias.value();
        match fields.get(field) {
            None => ctx.report(
                RawProblem::new(
                    ProblemKind::UnknownField,
                    Some(alias.loc(file)),
                    format!("entity `{entity}` has no field `{field}` to be named by"),
                )
                .help(name_hint(field, fields.keys().map(String::as_str), "fields")),
            ),
            Some(ValueType::Str) if aliases.iter().any(|a| a == field) => ctx.report(
                RawProblem::new(
                    ProblemKind::DuplicateId,
                    Some(alias.loc(file)),
                    format!("entity `{entity}` lists the alias `{field}` twice"),
                )
                .help("each alias appears once"),
            ),
            Some(ValueType::Str) => aliases.push(field.clone()),
            Some(_) => ctx.report(
                RawProblem::new(
                    ProblemKind::TypeMismatch,
                    Some(alias.loc(file)),
                    format!(
                        "the alias `{field}` of entity `{entity}` is declared `{}`, not `string`",
                        def.fields.get(field).map_or("", |t| t.value().as_str())
                    ),
                )
                .help("an alias is a `string` field people name a record by (`last4`, `phone_number`)"),
            ),
        }
    }
    aliases
}

/// A tool's confirmation template, parsed, every placeholder one of its
/// parameters; `None` after reporting what is wrong.
fn compile_confirmation(
    ctx: &mut Ctx<'_>,
    tool: &str,
    template: &Sp<String>,
    params: &BTreeMap<String, ValueType>,
    file: FileId,
) -> Option<Vec<ConfirmPiece>> {
    let pieces = match parse_confirmation(template.value()) {
        Ok(pieces) => pieces,
        Err(why) => {
            ctx.report(RawProblem::new(
                ProblemKind::BadTemplate,
                Some(template.loc(file)),
                format!("the confirmation of `{tool}`: {why}"),
            ));
            return None;
        }
    };
    let mut known = true;
    for piece in &pieces {
        if let ConfirmPiece::Param(name) = piece
            && !params.contains_key(name)
        {
            known = false;
            let names = params.keys().cloned().collect::<Vec<_>>().join(", ");
            ctx.report(
                RawProblem::new(
                    ProblemKind::UnknownParam,
                    Some(template.loc(file)),
                    format!("the confirmation of `{tool}` names `{{{name}}}`, which is not one of its parameters"),
                )
                .help(format!("its parameters: {names}")),
            );
        }
    }
    known.then_some(pieces)
}

/// A paged read's declaration: its limiting arguments are parameters, its
/// records path parses, and the list it must cover is a list field of an
/// entity named by one of its parameters.
fn compile_pages(
    ctx: &mut Ctx<'_>,
    domain: &Domain,
    pages: &crate::bundle::model::PagesDef,
    params: &BTreeMap<String, ValueType>,
    file: FileId,
) -> Option<Pages> {
    let mut ok = true;
    let param = |ctx: &mut Ctx<'_>, sp: &Sp<String>| {
        if params.contains_key(sp.value()) {
            return true;
        }
        ctx.report(
            RawProblem::new(
                ProblemKind::UnknownParam,
                Some(sp.loc(file)),
                format!("the tool has no parameter `{}`", sp.value()),
            )
            .help(name_hint(
                sp.value(),
                params.keys().map(String::as_str),
                "parameters",
            )),
        );
        false
    };
    for limit in &pages.limits {
        ok &= param(ctx, limit);
    }
    let records = path(ctx, &pages.records, file);
    let against = match &pages.complete_against {
        None => None,
        Some(def) => {
            let id_ok = param(ctx, &def.id);
            let entity = domain.entities.get(def.entity.value());
            let field = entity.and_then(|e| e.fields.get(def.field.value()));
            match (entity, field) {
                (None, _) => {
                    ctx.report(
                        RawProblem::new(
                            ProblemKind::UnknownEntity,
                            Some(def.entity.loc(file)),
                            format!("unknown entity `{}`", def.entity.value()),
                        )
                        .help(name_hint(
                            def.entity.value(),
                            domain.entities.keys().map(String::as_str),
                            "declared entities",
                        )),
                    );
                    ok = false;
                }
                (Some(e), None) => {
                    ctx.report(
                        RawProblem::new(
                            ProblemKind::UnknownField,
                            Some(def.field.loc(file)),
                            format!("entity `{}` has no field `{}`", e.name, def.field.value()),
                        )
                        .help(name_hint(
                            def.field.value(),
                            e.fields.keys().map(String::as_str),
                            "fields",
                        )),
                    );
                    ok = false;
                }
                (Some(e), Some(ty)) if !matches!(ty, ValueType::List(_)) => {
                    ctx.report(RawProblem::new(
                        ProblemKind::TypeMismatch,
                        Some(def.field.loc(file)),
                        format!(
                            "`{}.{}` is not a list: a paged read is complete against a list of record ids",
                            e.name,
                            def.field.value()
                        ),
                    ));
                    ok = false;
                }
                (Some(_), Some(_)) => {}
            }
            ok &= id_ok;
            Some(CompleteAgainst {
                entity: def.entity.value().clone(),
                id_arg: def.id.value().clone(),
                field: def.field.value().clone(),
            })
        }
    };
    Some(Pages {
        limits: pages.limits.iter().map(|l| l.value().clone()).collect(),
        records: records?,
        against,
    })
    .filter(|_| ok)
}

fn compile_read(
    ctx: &mut Ctx<'_>,
    domain: &Domain,
    read: &crate::bundle::model::ReadDef,
    params: &BTreeMap<String, ValueType>,
    file: FileId,
) -> Option<ReadSpec> {
    let entity_name = read.entity.value();
    let Some(entity) = domain.entities.get(entity_name) else {
        let known = domain
            .entities
            .keys()
            .cloned()
            .collect::<Vec<_>>()
            .join(", ");
        ctx.report(
            RawProblem::new(
                ProblemKind::UnknownEntity,
                Some(read.entity.loc(file)),
                format!("unknown entity `{entity_name}`"),
            )
            .help(name_hint(
                entity_name,
                known.split(", "),
                "declared entities",
            )),
        );
        return None;
    };
    let each = match &read.each {
        Some(each) => Some(path(ctx, each, file)?),
        None => None,
    };
    if !read.text.is_empty() {
        return compile_text_read(ctx, entity, read, file);
    }
    let (id, key) = if entity.key.is_empty() {
        (path(ctx, &read.id, file)?, Vec::new())
    } else {
        let key = key_parts(ctx, entity, &read.id, params, file)?;
        let root = JsonPath {
            from_root: true,
            steps: Vec::new(),
        };
        (root, key)
    };
    let mut fields = BTreeMap::new();
    let mut key_fields = BTreeMap::new();
    for (field, field_path) in &read.fields {
        if let Some(keyed) = key_field(ctx, domain, entity, field, field_path, file) {
            if let Some(keyed) = keyed {
                key_fields.insert(field.clone(), keyed);
            }
            continue;
        }
        let Some(field_type) = entity.fields.get(field) else {
            let hint = did_you_mean(field, entity.fields.keys().map(String::as_str))
                .unwrap_or_else(|| {
                    "declare the field under the entity's `fields` with its type".to_owned()
                });
            ctx.report(
                RawProblem::new(
                    ProblemKind::UnknownField,
                    Some(field_path.loc(file)),
                    format!("entity `{entity_name}` has no field `{field}`"),
                )
                .help(hint),
            );
            continue;
        };
        let Some(p) = path(ctx, field_path, file) else {
            continue;
        };
        // `[*]` or `.*` selects several values: only a list field holds them.
        if p.selects_many() && !matches!(field_type, ValueType::List(_)) {
            let shown = ctx.show_type(field_type);
            ctx.report(
                RawProblem::new(
                    ProblemKind::TypeMismatch,
                    Some(field_path.loc(file)),
                    format!(
                        "`{}` selects several values, but field `{field}` of `{entity_name}` is {}",
                        field_path.value(),
                        with_article(&shown)
                    ),
                )
                .label("a list path")
                .help(format!(
                    "drop the `[*]` to read one value, or declare the field as `list<{shown}>`"
                )),
            );
            continue;
        }
        fields.insert(field.clone(), p);
    }
    Some(ReadSpec {
        entity: entity_name.clone(),
        each,
        id,
        key,
        key_fields,
        fields,
        text: None,
        quoted_numbers: read.quoted_numbers,
    })
}

/// The comma-separated parts inside `[...]` (with their byte offsets in
/// `text`), or `None` when `text` is not bracketed.
pub(super) fn bracketed(text: &str) -> Option<Vec<(usize, &str)>> {
    let open = text.find('[')?;
    let inner = text.get(open + 1..)?.strip_suffix(']')?;
    let mut parts = Vec::new();
    let mut at = open + 1;
    for part in inner.split(',') {
        let lead = part.len() - part.trim_start().len();
        parts.push((at + lead, part.trim()));
        at += part.len() + 1;
    }
    Some(parts)
}

/// The parts of a keyed entity's id in a read: `[part, ...]`, one per key
/// part, each a result path or `args.<param>` of the tool.
fn key_parts(
    ctx: &mut Ctx<'_>,
    entity: &Entity,
    sp: &Sp<String>,
    params: &BTreeMap<String, ValueType>,
    file: FileId,
) -> Option<Vec<crate::schema::KeyPart>> {
    let text = sp.value();
    let parts = bracketed(text).filter(|_| text.starts_with('['));
    let Some(parts) = parts.filter(|p| p.len() == entity.key.len()) else {
        let loc = ctx.inner_loc(sp, file, 0..text.len());
        return ctx.error(
            ProblemKind::BadPath,
            Some(loc),
            format!(
                "`{}` has a key of {} parts: its id is `[part, ...]` with one path or `args.<param>` per part",
                entity.name,
                entity.key.len()
            ),
        );
    };
    let mut out = Vec::new();
    for ((at, part), ty) in parts.into_iter().zip(&entity.key) {
        if let Some(param) = part.strip_prefix("args.") {
            let Some(param_ty) = params.get(param) else {
                let loc = ctx.inner_loc(sp, file, at..at + part.len());
                ctx.report(
                    RawProblem::new(
                        ProblemKind::UnknownParam,
                        Some(loc),
                        format!("the tool has no parameter `{param}`"),
                    )
                    .help(name_hint(
                        param,
                        params.keys().map(String::as_str),
                        "parameters",
                    )),
                );
                return None;
            };
            if param_ty != ty {
                let (want, found) = (ctx.show_type(ty), ctx.show_type(param_ty));
                let loc = ctx.inner_loc(sp, file, at..at + part.len());
                return ctx.error(
                    ProblemKind::TypeMismatch,
                    Some(loc),
                    format!(
                        "this key part of `{}` is {}, but `{part}` is {}",
                        entity.name,
                        with_article(&want),
                        with_article(&found)
                    ),
                );
            }
            out.push(crate::schema::KeyPart::Arg(param.to_owned()));
            continue;
        }
        match parse_json_path(part) {
            Ok(p) => out.push(crate::schema::KeyPart::Result(p)),
            Err(e) => {
                let loc = ctx.inner_loc(sp, file, at + e.span.start..at + e.span.end);
                return ctx.error(ProblemKind::BadPath, Some(loc), e.message);
            }
        }
    }
    Some(out)
}

/// A field holding composite ids of another entity
/// (`flight_date[$.flights[*].flight_number, $.flights[*].date]`): `None`
/// when the path is an ordinary one, `Some(None)` after reporting a mistake.
fn key_field(
    ctx: &mut Ctx<'_>,
    domain: &Domain,
    entity: &Entity,
    field: &str,
    sp: &Sp<String>,
    file: FileId,
) -> Option<Option<crate::schema::KeyField>> {
    let text = sp.value();
    if text.starts_with('$') || text.starts_with('.') {
        return None;
    }
    let parts = bracketed(text)?;
    let target_name = text.split('[').next().unwrap_or_default().trim();
    let Some(target) = domain
        .entities
        .get(target_name)
        .filter(|t| !t.key.is_empty())
    else {
        let loc = ctx.inner_loc(sp, file, 0..target_name.len().max(1));
        ctx.report(
            RawProblem::new(
                ProblemKind::UnknownEntity,
                Some(loc),
                format!("`{target_name}` is not an entity with a composite `key`"),
            )
            .help("declare the entity with `key: [type, ...]`"),
        );
        return Some(None);
    };
    if entity.fields.get(field) != Some(&ValueType::List(Box::new(ValueType::Str))) {
        ctx.report(RawProblem::new(
            ProblemKind::TypeMismatch,
            Some(sp.loc(file)),
            format!(
                "field `{field}` of `{}` holds composite ids: declare it `list<string>`",
                entity.name
            ),
        ));
        return Some(None);
    }
    if parts.len() != target.key.len() {
        ctx.report(RawProblem::new(
            ProblemKind::BadPath,
            Some(sp.loc(file)),
            format!(
                "`{target_name}` has a key of {} parts, this gives {}",
                target.key.len(),
                parts.len()
            ),
        ));
        return Some(None);
    }
    let mut paths = Vec::new();
    for (at, part) in parts {
        match parse_json_path(part) {
            Ok(p) => paths.push(p),
            Err(e) => {
                let loc = ctx.inner_loc(sp, file, at + e.span.start..at + e.span.end);
                ctx.report(RawProblem::new(ProblemKind::BadPath, Some(loc), e.message));
                return Some(None);
            }
        }
    }
    Some(Some(crate::schema::KeyField {
        entity: target_name.to_owned(),
        parts: paths,
    }))
}

/// A read of a plain-text result: the literal id and each field's patterns.
fn compile_text_read(
    ctx: &mut Ctx<'_>,
    entity: &crate::schema::Entity,
    read: &crate::bundle::model::ReadDef,
    file: FileId,
) -> Option<ReadSpec> {
    let entity_name = read.entity.value();
    if read.each.is_some() || !read.fields.is_empty() {
        ctx.report(
            RawProblem::new(
                ProblemKind::BadPath,
                Some(read.entity.loc(file)),
                format!("a text read of `{entity_name}` cannot also have `each` or `fields`"),
            )
            .help("a plain-text result has no JSON paths: give every field under `text`"),
        );
        return None;
    }
    let mut fields = BTreeMap::new();
    for (field, patterns) in &read.text {
        if !entity.fields.contains_key(field) {
            ctx.report(
                RawProblem::new(
                    ProblemKind::UnknownField,
                    Some(read.entity.loc(file)),
                    format!("entity `{entity_name}` has no field `{field}`"),
                )
                .help("declare the field under the entity's `fields` with its type"),
            );
            continue;
        }
        let compiled: Vec<(Option<String>, String)> = patterns
            .iter()
            .map(|m| (m.contains.clone(), m.value.clone()))
            .collect();
        fields.insert(field.clone(), compiled);
    }
    Some(ReadSpec {
        entity: entity_name.clone(),
        each: None,
        id: crate::schema::JsonPath {
            from_root: true,
            steps: Vec::new(),
        },
        key: Vec::new(),
        key_fields: BTreeMap::new(),
        fields: BTreeMap::new(),
        text: Some(crate::schema::TextRead {
            id: read.id.value().clone(),
            fields,
        }),
        quoted_numbers: false,
    })
}

fn path(ctx: &mut Ctx<'_>, sp: &Sp<String>, file: FileId) -> Option<JsonPath> {
    match parse_json_path(sp.value()) {
        Ok(p) => Some(p),
        Err(e) => {
            let loc = ctx.inner_loc(sp, file, e.span);
            let mut problem = RawProblem::new(ProblemKind::BadPath, Some(loc), e.message);
            if sp.value().trim_start().starts_with("args.") {
                problem = problem.help(
                    "a read takes its values from the tool's result (`$.order_id`); the call's \
                     arguments are not the result: bind one to a request variable in the node \
                     (`bind: {order: args.order_id}`), or make it part of a composite id \
                     (`key: [string, date]` on the entity, `id: \"[args.number, args.date]\"`)",
                );
            }
            ctx.report(problem);
            None
        }
    }
}

/// Parses and resolves a type expression written in the schema.
pub(crate) fn resolve_type(
    ctx: &mut Ctx<'_>,
    domain: &Domain,
    sp: &Sp<String>,
    file: FileId,
) -> Option<ValueType> {
    let parsed = match parse_type(sp.value()) {
        Ok(t) => t,
        Err(e) => {
            let loc = ctx.inner_loc(sp, file, e.span);
            return ctx.error(ProblemKind::BadType, Some(loc), e.message);
        }
    };
    lower_type(ctx, domain, &parsed, sp, file)
}

fn lower_type(
    ctx: &mut Ctx<'_>,
    domain: &Domain,
    ty: &TypeExpr,
    sp: &Sp<String>,
    file: FileId,
) -> Option<ValueType> {
    Some(match ty {
        TypeExpr::Str => ValueType::Str,
        TypeExpr::Int => ValueType::Int,
        TypeExpr::Amount => ValueType::Amount,
        TypeExpr::Bool => ValueType::Bool,
        TypeExpr::Date => ValueType::Date,
        TypeExpr::DateTime => ValueType::DateTime,
        TypeExpr::Enum(name, span) => match domain.enums.get(name) {
            Some(e) => ValueType::Enum(e.symbol),
            None => {
                let loc = ctx.inner_loc(sp, file, span.clone());
                let known = domain.enums.keys().cloned().collect::<Vec<_>>().join(", ");
                ctx.report(
                    RawProblem::new(
                        ProblemKind::UnknownEnum,
                        Some(loc),
                        format!("unknown enum `{name}`"),
                    )
                    .help(format!("declared enums: {known}")),
                );
                return None;
            }
        },
        TypeExpr::List(inner) => {
            ValueType::List(Box::new(lower_type(ctx, domain, inner, sp, file)?))
        }
        TypeExpr::Object(fields) => {
            let mut lowered = Vec::new();
            for (name, ty) in fields {
                let symbol = ctx.interner.intern(name);
                lowered.push((symbol, lower_type(ctx, domain, ty, sp, file)?));
            }
            ValueType::Object(lowered)
        }
    })
}
