"""Statistics of the benchmarks (tests/bench/run, tests/bench/report): means with 95 %
confidence intervals (Student's t), paired ratios from interleaved samples, and the verdict
against a target, which is "inconclusive" whenever the interval spans it. Standard library only:
the guest has no scipy."""
import math

# two-sided 95 % quantiles of Student's t by degrees of freedom; between rows the next smaller
# df is used (a wider interval, never a narrower one)
_T95 = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365, 8: 2.306, 9: 2.262,
        10: 2.228, 11: 2.201, 12: 2.179, 13: 2.160, 14: 2.145, 15: 2.131, 16: 2.120, 17: 2.110,
        18: 2.101, 19: 2.093, 20: 2.086, 22: 2.074, 24: 2.064, 26: 2.056, 28: 2.048, 30: 2.042,
        40: 2.021, 50: 2.009, 60: 2.000, 80: 1.990, 100: 1.984, 120: 1.980, 200: 1.972, 1000: 1.962}


def t95(df):
    if df < 1:
        raise ValueError("a confidence interval needs at least 2 samples")
    return _T95[max(k for k in _T95 if k <= df)]


def mean_ci(xs):
    """(mean, low, high) of the 95 % interval of the mean."""
    n = len(xs)
    m = sum(xs) / n
    sd = math.sqrt(sum((x - m) ** 2 for x in xs) / (n - 1))
    h = t95(n - 1) * sd / math.sqrt(n)
    return m, m - h, m + h


def ratio_ci(base, value):
    """Paired samples measured interleaved (base[i] beside value[i]): the geometric mean of
    value[i]/base[i] with its 95 % interval, computed on the logarithms (ratios are skewed)."""
    if len(base) != len(value) or len(base) < 2:
        raise ValueError("paired samples of equal length >= 2 needed")
    if min(base) <= 0 or min(value) <= 0:
        raise ValueError("a sample <= 0 is a failed measurement")
    m, lo, hi = mean_ci([math.log(v / b) for b, v in zip(base, value)])
    return math.exp(m), math.exp(lo), math.exp(hi)


def verdict(low, high, op, target):
    """'met', 'not met' or 'inconclusive' for `value op target` (op '<=', '<', '>=', '>') given
    the interval [low, high] of the value."""
    ok = {"<=": lambda v: v <= target, "<": lambda v: v < target,
          ">=": lambda v: v >= target, ">": lambda v: v > target}[op]
    if ok(low) and ok(high):
        return "met"
    if not ok(low) and not ok(high):
        return "not met"
    return "inconclusive"


def ratio_ci_unpaired(base, value):
    """Ratio of the means of two independent sets of samples, with a 95 % interval from the
    delta method on the logarithms; (ratio, None, None) if either set has one sample."""
    mb, mv = sum(base) / len(base), sum(value) / len(value)
    if mb <= 0 or mv <= 0:
        raise ValueError("a mean <= 0 is a failed measurement")
    if len(base) < 2 or len(value) < 2:
        return mv / mb, None, None

    def rel_var(xs, m):
        return sum((x - m) ** 2 for x in xs) / (len(xs) - 1) / len(xs) / (m * m)
    h = t95(min(len(base), len(value)) - 1) * math.sqrt(rel_var(base, mb) + rel_var(value, mv))
    r = mv / mb
    return r, r * math.exp(-h), r * math.exp(h)


def summarize(f):
    """Everything a table row shows, computed from a figure's raw samples (see tests/bench/run)."""
    xs = f["samples"]
    if not f.get("signed") and min(xs) < 0:
        raise ValueError("%s: a negative sample" % f["key"])
    out = {"n": len(xs), "mean": sum(xs) / len(xs), "lo": None, "hi": None, "ratio": None, "r_lo": None,
           "r_hi": None, "base": None, "verdict": None}
    if len(xs) >= 2:
        out["mean"], out["lo"], out["hi"] = mean_ci(xs)
    b = f.get("baseline")
    if b:
        bs = b["samples"]
        out["base"] = {"name": b["name"], "n": len(bs), "mean": sum(bs) / len(bs)}
        if b.get("paired"):
            out["ratio"], out["r_lo"], out["r_hi"] = ratio_ci(bs, xs)
        else:
            out["ratio"], out["r_lo"], out["r_hi"] = ratio_ci_unpaired(bs, xs)
    t = f.get("target")
    if t:
        if t["of"] == "ratio":
            lo, hi = (out["r_lo"], out["r_hi"]) if out["r_lo"] is not None else (out["ratio"], out["ratio"])
        else:
            lo, hi = (out["lo"], out["hi"]) if out["lo"] is not None else (out["mean"], out["mean"])
        out["verdict"] = verdict(lo, hi, t["op"], t["value"])
    return out


def interval(m, lo, hi):
    return fmt(m) if lo is None else "%s [%s, %s]" % (fmt(m), fmt(lo), fmt(hi))


def describe(f):
    """One line for the console."""
    s = summarize(f)
    line = "  %-66s %s %s (n=%d)" % (f["name"], interval(s["mean"], s["lo"], s["hi"]), f["unit"], s["n"])
    if s["base"]:
        line += "; %s %s: ratio %s×" % (s["base"]["name"], fmt(s["base"]["mean"]), interval(s["ratio"], s["r_lo"], s["r_hi"]))
    if s["verdict"]:
        line += "; target %s: %s" % (f["target"]["text"], s["verdict"])
    return line


def fmt(v):
    if v is None:
        return "–"
    if abs(v) >= 1000:
        return "%.0f" % v
    return "%.3g" % v


def self_test():
    assert abs(t95(29) - 2.048) < 1e-9 and t95(35) == 2.042
    m, lo, hi = mean_ci([1.0, 2.0, 3.0])
    assert m == 2.0 and abs(hi - 2.0 - 4.303 / math.sqrt(3)) < 1e-9
    r, lo, hi = ratio_ci([1.0, 2.0, 4.0], [2.0, 4.0, 8.0])
    assert abs(r - 2.0) < 1e-12 and abs(lo - 2.0) < 1e-12 and abs(hi - 2.0) < 1e-12
    assert verdict(0.9, 1.0, "<=", 1.05) == "met"
    assert verdict(1.0, 1.1, "<=", 1.05) == "inconclusive"
    assert verdict(1.06, 1.1, "<=", 1.05) == "not met"
    assert verdict(90e3, 120e3, ">=", 100e3) == "inconclusive"
    r, lo, hi = ratio_ci_unpaired([1.0, 1.0], [2.0, 2.0])
    assert r == 2.0 and lo == 2.0 and hi == 2.0
    assert ratio_ci_unpaired([1.0], [3.0, 3.0])[1] is None
    s = summarize({"key": "k", "samples": [3.0, 3.0], "target": {"of": "value", "op": "<", "value": 5, "text": ""}})
    assert s["verdict"] == "met" and s["mean"] == 3.0
    s = summarize({"key": "k", "samples": [0.0], "target": {"of": "value", "op": "<=", "value": 0, "text": ""}})
    assert s["verdict"] == "met" and s["lo"] is None
    for bad in (([1.0], [1.0]), ([1.0, -1.0], [1.0, 1.0])):
        try:
            ratio_ci(*bad)
        except ValueError:
            continue
        raise AssertionError("ratio_ci accepted %r" % (bad,))


if __name__ == "__main__":
    self_test()
    print("benchstats: self-test passed")
