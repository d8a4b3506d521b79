//! Bundle front end: loading (I/O + YAML), compiling (typecheck, inline,
//! validate) and parsing a single check expression.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use turnstile_benches::toy_bundle;
use turnstile_engine::bundle::load;
use turnstile_engine::parse_expr;
use turnstile_engine::{check_bundle, compile};

fn bench_compile(c: &mut Criterion) {
    let dir = toy_bundle();
    c.bench_function("load_and_compile/toy-orders", |b| {
        b.iter(|| check_bundle(black_box(&dir)).map(|b| b.program.checks.len()))
    });
    c.bench_function("load/toy-orders", |b| {
        b.iter(|| load(black_box(&dir)).is_ok())
    });
    c.bench_function("compile_only/toy-orders", |b| {
        b.iter_batched(
            || load(&dir),
            |loaded| loaded.map(|l| compile(l).map(|b| b.program.checks.len())),
            criterion::BatchSize::SmallInput,
        )
    });
    let guard = "args.order_id == $order && args.reason in enum(cancel_reason) && order[args.order_id].status == \"pending\"";
    c.bench_function("parse_expression/guard", |b| {
        b.iter(|| parse_expr(black_box(guard)).is_ok())
    });
}

criterion_group!(benches, bench_compile);
criterion_main!(benches);
