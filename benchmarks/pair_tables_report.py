"""The summaries ``benchmarks/pair_tables.py`` prints: one reader per stage's run folder (its
``metrics.json``) and one table per stage."""
from __future__ import annotations

import json
from pathlib import Path

from alignment.mappings import parse_method

ROWS = ["unmapped", "center", "center > clp"]


def wall_minutes(folder: Path) -> float | None:
    """Minutes the stage took when this script ran it (None: run some other way)."""
    record = folder / "pairs-wall.json"
    return json.loads(record.read_text())["seconds"] / 60 if record.is_file() else None


def summary(folder: Path) -> dict:
    """The three rows' retrieval and CBLI P@1, and center > clp's gain over unmapped with its
    interval (the demo stores each row's difference from center > clp)."""
    m = json.loads((folder / "metrics.json").read_text())
    out = {row: {"retrieval": m[f"{row}/retrieval_cosine_src2tgt"], "cbli": m[f"{row}/cbli_p1"]}
           for row in ROWS}
    for measure, key in (("retrieval", "delta"), ("cbli", "cbli_delta")):
        d = m[f"unmapped/{key if key != 'delta' else 'delta_vs_baseline'}"]
        lo, hi = m[f"unmapped/{key}_lo"], m[f"unmapped/{key}_hi"]
        out[f"gain_{measure}"] = (-d, -hi, -lo)
    out["seconds"] = m.get("seconds")
    return out


ROUTES = ["center", "vecmap", "muse", "muse + refinement", "mining > center > clp",
          "mining > clp_flow"]


SUPERVISED = "supervised: center > clp"


def unsupervised_summary(folder: Path) -> dict:
    """From a ``crossalign unsupervised --measure cbli`` run: each route's CBLI P@1 and its
    difference from ``center`` and from supervised ``center > clp`` (paired bootstrap), and
    the route the label-free criterion picks."""
    m = json.loads((folder / "metrics.json").read_text())
    names = [n for n in ROUTES if f"{n}/cbli_p1" in m]
    pick = max(names, key=lambda n: m[f"{n}/semantic"])
    out = {"pick": pick, "supervised": m[f"{SUPERVISED}/cbli_p1"], "routes": {}}
    for n in names:
        out["routes"][n] = {"cbli": m[f"{n}/cbli_p1"], **{
            ref: tuple(m.get(f"{n}/vs_{ref}{end}", 0.0) for end in ("", "_lo", "_hi"))
            for ref in ("center", "center_clp")}}
    return out


def print_unsupervised(results: dict, protocol: str = "disjoint") -> None:
    print(f"\nunsupervised ({protocol}), multilingual-e5, CBLI P@1; each route − center [95% CI]; "
          "* = the label-free pick")
    print(f"{'pair':6} {'center':>7} " + " ".join(f"{n[:22]:>22}" for n in ROUTES[1:])
          + f" {'sup. center>clp':>16} {'pick − sup. [95% CI]':>22}")
    for pair, r in results.items():
        cells = []
        for n in ROUTES[1:]:
            if n not in r["routes"]:
                cells.append(f"{'–':>22}")
                continue
            d, lo, hi = r["routes"][n]["center"]
            star = "*" if n == r["pick"] else " "
            cells.append(f"{100 * d:+5.1f} [{100 * lo:+5.1f},{100 * hi:+5.1f}]{star}".rjust(22))
        pick = r["routes"][r["pick"]]
        d, lo, hi = pick["center_clp"]
        center = f"{100 * r['routes']['center']['cbli']:6.1f}" + ("*" if r["pick"] == "center"
                                                                 else " ")
        print(f"{pair:6} {center:>7} " + " ".join(cells) + f" {100 * r['supervised']:16.1f} "
              f"{f'{100 * d:+5.1f} [{100 * lo:+5.1f},{100 * hi:+5.1f}]':>22}")


FLOW = parse_method("clp_flow").label  # the preset's rows are named by what it expands to


def trained_summary(folder: Path) -> dict:
    """``clp_flow`` (semantic-selected epoch) against ``center > clp``: retrieval and CBLI."""
    m = json.loads((folder / "metrics.json").read_text())
    out = {"minutes": wall_minutes(folder)}
    for row, label in (("center > clp", "center > clp"), ("clp_flow", FLOW)):
        out[row] = {"retrieval": m[f"{label}/semantic/retrieval_cosine_src2tgt"],
                    "cbli": m[f"{label}/semantic/cbli_p1"]}
    for measure, key in (("retrieval", "vs_baseline"), ("cbli", "cbli_vs_baseline")):
        out[f"delta_{measure}"] = tuple(m[f"{FLOW}/{key}{end}"] for end in ("", "_lo", "_hi"))
    return out


TESTS = ["ref>mt", "ref>literal", "content", "negation", "number", "name", "drop", "shuffle"]


def challenge_summary(folder: Path) -> dict:
    """Each test's share (and interval) for the unmapped encoder and the export."""
    m = json.loads((folder / "metrics.json").read_text())
    systems = sorted({k.split("/")[0] for k in m})
    out = {"minutes": wall_minutes(folder)}
    for system in systems:
        name = "unmapped" if system.startswith("unmapped") else "export"
        out[name] = {t: tuple(m[f"{system}/{t}/{x}"] for x in ("share", "lo", "hi"))
                     for t in TESTS if f"{system}/{t}/share" in m}
    return out


JA_ROWS = ["unmapped", "center > clp", "Joint-Align", "Joint-Align ⊕ NORM",
           "Joint-Align > center > clp"]


def joint_align_summary(folder: Path) -> dict:
    """Retrieval and CBLI P@1 of the Joint-Align rows, each against ``center > clp``."""
    m = json.loads((folder / "metrics.json").read_text())
    out = {"minutes": wall_minutes(folder), "rows": {}}
    for row in JA_ROWS:
        if f"{row}/cbli_p1" in m:
            out["rows"][row] = {"retrieval": m[f"{row}/retrieval_cosine_src2tgt"],
                                "cbli": m[f"{row}/cbli_p1"],
                                "vs_center_clp": tuple(m.get(f"{row}/{k}", 0.0) for k in
                                                       ("delta_vs_baseline", "delta_lo",
                                                        "delta_hi"))}
    return out


def ci(d: tuple[float, float, float]) -> str:
    return f"{100 * d[0]:+5.1f} [{100 * d[1]:+5.1f},{100 * d[2]:+5.1f}]"


def print_supervised(results: dict) -> None:
    print(f"{'pair':6} {'encoder':7} {'unmapped':>17} {'center':>17} {'center > clp':>17} "
          f"{'gain P@1 [95% CI]':>22} {'gain CBLI [95% CI]':>22} {'min':>5}")
    print(f"{'':14} {'P@1 / CBLI':>17} {'P@1 / CBLI':>17} {'P@1 / CBLI':>17}")
    for key, r in results.items():
        pair, enc = key.split("/")
        cells = [f"{100 * r[row]['retrieval']:7.1f} / {100 * r[row]['cbli']:5.1f}" for row in ROWS]
        gains = [f"{100 * d:+5.1f} [{100 * lo:+5.1f}, {100 * hi:+5.1f}]"
                 for d, lo, hi in (r["gain_retrieval"], r["gain_cbli"])]
        minutes = f"{r['seconds'] / 60:5.1f}" if r.get("seconds") else "    –"
        print(f"{pair:6} {enc:7} {cells[0]:>17} {cells[1]:>17} {cells[2]:>17} {gains[0]:>22} "
              f"{gains[1]:>22} {minutes}")


def print_trained(results: dict) -> None:
    print("\ntrained map: clp_flow (semantic-selected epoch of 6, 50,000 pairs) against "
          "center > clp; P@1 / CBLI P@1, differences with paired bootstrap 95% CI")
    print(f"{'pair':6} {'encoder':7} {'center > clp':>15} {'clp_flow':>15} "
          f"{'Δ P@1':>22} {'Δ CBLI':>22} {'min':>5}")
    for key, r in results.items():
        pair, enc = key.split("/")
        cells = [f"{100 * r[row]['retrieval']:5.1f} / {100 * r[row]['cbli']:5.1f}"
                 for row in ("center > clp", "clp_flow")]
        print(f"{pair:6} {enc:7} {cells[0]:>15} {cells[1]:>15} {ci(r['delta_retrieval']):>22} "
              f"{ci(r['delta_cbli']):>22} {fmt_minutes(r['minutes'])}")


def print_challenge(results: dict) -> None:
    print("\nchallenge set (300 sources, XMoverScore 2022 layer 12, multilingual-e5): share (%) of "
          "sources ranked below the reference [95% CI], unmapped and the center > clp export")
    print(f"{'pair':6} {'system':12} " + " ".join(f"{t:>16}" for t in TESTS) + f" {'min':>5}")
    for pair, r in results.items():
        for system, name in (("unmapped", "unmapped"), ("export", "center > clp")):
            cells = []
            for t in TESTS:
                v = r.get(system, {}).get(t)
                cells.append("–" if v is None or v[0] != v[0] else
                             f"{100 * v[0]:.1f} [{100 * v[1]:.0f},{100 * v[2]:.0f}]")
            minutes = fmt_minutes(r["minutes"]) if system == "export" else ""
            print(f"{pair:6} {name:12} " + " ".join(f"{c:>16}" for c in cells) + f" {minutes}")


def print_joint_align(results: dict) -> None:
    print("\nJoint-Align (plain), CBLI P@1 and each row − center > clp [95% CI]")
    for key, r in results.items():
        for row, v in r["rows"].items():
            delta = "" if row == "center > clp" else ci(v["vs_center_clp"])
            print(f"{key:12} {row:28} {100 * v['retrieval']:6.1f} / {100 * v['cbli']:5.1f}  "
                  f"{delta:>22}")
        print(f"{key:12} minutes: {fmt_minutes(r['minutes'])}")


def fmt_minutes(minutes: float | None) -> str:
    return f"{minutes:5.1f}" if minutes else "    –"

