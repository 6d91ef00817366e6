package io.gpupool.cli.view;

import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Times and durations for people: a moment as local ISO time plus how far from now ("2026-12-02T01:14:03 (in 12m)"),
 * a duration with units ("21.9s", "5m 12s"). The scheduler's answers keep epoch milliseconds (json and yaml print
 * them raw); only the human formats go through here.
 */
public final class HumanTime {
    /** Epoch milliseconds as the engine writes them into reason texts: 2001-09-09 to 2286-11-20. */
    private static final Pattern EPOCH_MS = Pattern.compile("(?<![\\d.])(1\\d{12}|[2-9]\\d{12})(?![\\d.])");
    /** A runtime in milliseconds as the engine writes it into reason texts ("estimated runtime 21861"). */
    private static final Pattern RUNTIME_MS = Pattern.compile("(estimated runtime )(\\d+)(?![\\d.])");
    private static final DateTimeFormatter LOCAL = DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss");

    private final long nowMs;
    private final ZoneId zone;

    public HumanTime(final long nowMs, final ZoneId zone) {
        this.nowMs = nowMs;
        this.zone = zone;
    }

    /** Against the wall clock, in the machine's time zone. */
    public static HumanTime now() {
        return new HumanTime(System.currentTimeMillis(), ZoneId.systemDefault());
    }

    public long nowMs() {
        return nowMs;
    }

    /** "2026-12-02T01:14:03 (in 12m)". */
    public String at(final long epochMs) {
        return local(epochMs) + " (" + relative(epochMs) + ")";
    }

    /** "2026-12-02T01:14:03", local time, to the second. */
    public String local(final long epochMs) {
        return LocalDateTime.ofInstant(Instant.ofEpochMilli(epochMs), zone).format(LOCAL);
    }

    /** "3h ago", "in 12m", "now" (under a second either way): the largest unit only (s, m, h, d, y). */
    public String relative(final long epochMs) {
        final long d = epochMs - nowMs;
        if (Math.abs(d) < 1_000) {
            return "now";
        }
        final String size = coarse(Math.abs(d));
        return d > 0 ? "in " + size : size + " ago";
    }

    /** How long since {@code epochMs} ("5m 12s"); "-" for a time in the future. */
    public String since(final long epochMs) {
        return epochMs > nowMs ? "-" : duration(nowMs - epochMs);
    }

    /** "850ms", "21.9s", "5m 12s", "3h 5m", "2d 4h". */
    public static String duration(final long ms) {
        if (ms < 0) {
            return "-" + duration(-ms);
        }
        if (ms < 1_000) {
            return ms + "ms";
        }
        final long tenths = Math.round(ms / 100.0);
        if (tenths < 600) {
            return tenths % 10 == 0 ? tenths / 10 + "s" : tenths / 10 + "." + tenths % 10 + "s";
        }
        final long s = ms / 1_000;
        if (s < 3_600) {
            return pair(s / 60, "m", s % 60, "s");
        }
        if (s < 86_400) {
            return pair(s / 3_600, "h", s % 3_600 / 60, "m");
        }
        return pair(s / 86_400, "d", s % 86_400 / 3_600, "h");
    }

    /**
     * A reason text with its epoch-millisecond times and runtimes in milliseconds written for people, for display
     * only: the recorded text (decisions, golden histories) stays as the engine wrote it.
     */
    public String text(final String engineText) {
        if (engineText == null || engineText.isEmpty()) {
            return engineText;
        }
        final Matcher runtimes = RUNTIME_MS.matcher(engineText);
        final StringBuilder b = new StringBuilder();
        while (runtimes.find()) {
            runtimes.appendReplacement(b, Matcher.quoteReplacement(runtimes.group(1)
                    + duration(Long.parseLong(runtimes.group(2)))));
        }
        runtimes.appendTail(b);
        final Matcher epochs = EPOCH_MS.matcher(b);
        final StringBuilder out = new StringBuilder();
        while (epochs.find()) {
            epochs.appendReplacement(out, Matcher.quoteReplacement(at(Long.parseLong(epochs.group(1)))));
        }
        epochs.appendTail(out);
        return out.toString();
    }

    /**
     * An evidence value for people: keys the engine names {@code *_ms} hold a moment (epoch milliseconds) or a
     * duration (anything smaller); other values are reason text.
     */
    public String evidence(final String key, final String value) {
        if (key.endsWith("_ms") && value.matches("\\d{1,18}")) {
            final long v = Long.parseLong(value);
            return v >= 1_000_000_000_000L ? at(v) : duration(v);
        }
        return text(value);
    }

    private static String coarse(final long ms) {
        if (ms < 60_000) {
            return ms / 1_000 + "s";
        }
        if (ms < 3_600_000) {
            return ms / 60_000 + "m";
        }
        if (ms < 86_400_000) {
            return ms / 3_600_000 + "h";
        }
        if (ms < 365 * 86_400_000L) {
            return ms / 86_400_000 + "d";
        }
        return ms / (365 * 86_400_000L) + "y";
    }

    private static String pair(final long a, final String ua, final long b, final String ub) {
        return b == 0 ? a + ua : a + ua + " " + b + ub;
    }
}
