"""Generates the checked-bag allowance clauses of flows/book.yaml and
flows/modify_baggage.yaml (policy.md:82-95). Arithmetic now exists in checks,
so each clause is exact: non-free bags = max(0, total - k x passengers) for
booking, max(already paid, total - k x passengers) for added bags, where k is
the per-passenger allowance of (membership, cabin). The language has no table
lookup (LANGUAGE_GAPS.md #2), so the nine (membership, cabin) pairs are
grouped by k."""
TABLE = {
    "regular": {"basic_economy": 0, "economy": 1, "business": 2},
    "silver": {"basic_economy": 1, "economy": 2, "business": 3},
    "gold": {"basic_economy": 2, "economy": 3, "business": 4},
}


def clause(member, cabin_is, count, floor, ind="      "):
    groups = {}
    for m, row in TABLE.items():
        for c, k in row.items():
            groups.setdefault(k, []).append(f'{member} == "{m}" && {cabin_is(c)}')
    out = []
    for k, pairs in sorted(groups.items()):
        who = "(" + " || ".join(f"({p})" for p in pairs) + ")" if len(pairs) > 1 else f"({pairs[0]})"
        rest = "args.total_baggages" if k == 0 else f"args.total_baggages - {k} * {count}"
        # nonfree >= floor is a conjunct of the guard, so `<=` here means `==`
        # (written as an ordering so a violation reads as an amount).
        rule = (f"(args.nonfree_baggages >= {rest}\n{ind}       && (args.nonfree_baggages <= {floor}"
                f" || args.nonfree_baggages <= {rest}))")
        out.append(f"({who}\n{ind}   && {rule})")
    return "(" + (f"\n{ind}|| ").join(out) + ")"


if __name__ == "__main__":
    import sys
    if sys.argv[1:] == ["book"]:
        print(clause("user[$user].membership", lambda c: f'args.cabin == "{c}"', "count(args.passengers[*].first_name)", "0"))
    else:
        print(clause("user[$user].membership", lambda c: f'reservation[$r].cabin == "{c}"',
                     "count(reservation[$r].passenger_first_names)", "reservation[$r].nonfree_baggages"))
