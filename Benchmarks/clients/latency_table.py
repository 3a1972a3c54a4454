"""A Markdown row of latency figures (samples in seconds, shown in milliseconds), for the broker's benchmarks."""
import statistics


def percentile(samples, fraction):
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(round(fraction * (len(ordered) - 1))))]


def row(label, samples, digits=3):
    ms = [s * 1000 for s in samples]
    figures = (statistics.median(ms), percentile(ms, 0.9), percentile(ms, 0.99), max(ms))
    return "| %s | %d | %s |" % (label, len(ms), " | ".join("%.*f" % (digits, figure) for figure in figures))
