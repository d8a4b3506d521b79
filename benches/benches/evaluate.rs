//! The Datalog program on whole traces of 50, 500 and 5,000 events (fact
//! extraction included and measured separately), to show how it scales.

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use turnstile_benches::{shop_bundle, shop_trace};
use turnstile_engine::check_bundle;
use turnstile_engine::decide::decide;
use turnstile_engine::extract::extract;

fn bench_evaluate(c: &mut Criterion) {
    let Ok(bundle) = check_bundle(&shop_bundle()) else {
        panic!("the shop bundle must compile");
    };
    let mut group = c.benchmark_group("evaluate");
    group.sample_size(10);
    for events in [50usize, 500, 5_000] {
        let (trace, judged) = shop_trace(&bundle, events);
        group.throughput(Throughput::Elements(trace.events.len() as u64));
        group.bench_with_input(BenchmarkId::new("decide", events), &trace, |b, trace| {
            b.iter(|| decide(&bundle, black_box(trace), &judged).map(|d| d.derived.allowed.len()))
        });
        group.bench_with_input(BenchmarkId::new("extract", events), &trace, |b, trace| {
            b.iter(|| extract(&bundle, black_box(trace)).attrs.len())
        });
    }
    group.finish();
}

criterion_group!(benches, bench_evaluate);
criterion_main!(benches);
