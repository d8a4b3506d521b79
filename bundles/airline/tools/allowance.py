"""Generates the checked-bag allowance clauses of flows/book.yaml and
flows/modify_baggage.yaml (policy.md:82-95). The check language has no
arithmetic (see ../LANGUAGE_GAPS.md), so the free allowance (per-passenger
allowance x passengers) is enumerated for 1..5 passengers, grouped by the
per-passenger allowance k."""
TABLE = {
    "regular": {"basic_economy": 0, "economy": 1, "business": 2},
    "silver": {"basic_economy": 1, "economy": 2, "business": 3},
    "gold": {"basic_economy": 2, "economy": 3, "business": 4},
}

def clause(member, cabin_is, count, total="args.total_baggages", nonfree="args.nonfree_baggages", ind="      "):
    groups = {}
    for m, row in TABLE.items():
        for c, k in row.items():
            groups.setdefault(k, []).append(f'{member} == "{m}" && {cabin_is(c)}')
    out = []
    for k, pairs in sorted(groups.items()):
        who = "(" + " || ".join(f"({p})" for p in pairs) + ")" if len(pairs) > 1 else f"({pairs[0]})"
        if k == 0:
            rule = f"{nonfree} == {total}"
        else:
            rule = "(" + (f"\n{ind}      || ").join(
                f"({count} == {n} && ({nonfree} == 0 && {total} <= {k*n} || {nonfree} > 0 && {total} > {k*n}))"
                for n in range(1, 6)) + ")"
        out.append(f"({who}\n{ind}   && {rule})")
    return "(" + (f"\n{ind}|| ").join(out) + ")"

if __name__ == "__main__":
    import sys
    if sys.argv[1:] == ["book"]:
        print(clause("user[$user].membership", lambda c: f'args.cabin == "{c}"', "count(args.passengers)"))
    else:
        print(clause("user[$user].membership",
                     lambda c: f'(reservation[$r].cabin == "{c}" || succeeded(update_reservation_flights, reservation_id == $r, cabin == "{c}"))',
                     "count(reservation[$r].passenger_first_names)"))
