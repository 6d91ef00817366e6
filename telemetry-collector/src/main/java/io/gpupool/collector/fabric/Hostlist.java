package io.gpupool.collector.fabric;

import java.util.ArrayList;
import java.util.List;

/**
 * Expands Slurm hostlist expressions: {@code dev[0-5],gpu[01-16]}, {@code a[1,3,5-7]},
 * {@code rack[1-2]-n[01-02]} (several ranges: every combination). Zero padding of the lower
 * bound is kept, as Slurm does.
 */
public final class Hostlist {
    private static final int LIMIT = 1_000_000;

    private Hostlist() {
    }

    public static List<String> expand(final String expression) {
        final List<String> out = new ArrayList<>();
        for (final String part : topLevel(expression.trim())) {
            if (!part.isEmpty()) {
                expandOne(part, out);
            }
        }
        return out;
    }

    /** Splits on commas outside brackets. */
    private static List<String> topLevel(final String s) {
        final List<String> parts = new ArrayList<>();
        int depth = 0;
        int start = 0;
        for (int i = 0; i < s.length(); i++) {
            final char c = s.charAt(i);
            if (c == '[') {
                depth++;
            } else if (c == ']') {
                depth--;
                if (depth < 0) {
                    throw new IllegalArgumentException("unbalanced ']' in hostlist '" + s + "'");
                }
            } else if (c == ',' && depth == 0) {
                parts.add(s.substring(start, i).trim());
                start = i + 1;
            }
        }
        if (depth != 0) {
            throw new IllegalArgumentException("unbalanced '[' in hostlist '" + s + "'");
        }
        parts.add(s.substring(start).trim());
        return parts;
    }

    private static void expandOne(final String pattern, final List<String> out) {
        final int open = pattern.indexOf('[');
        if (open < 0) {
            out.add(pattern);
            return;
        }
        final int close = pattern.indexOf(']', open);
        final String prefix = pattern.substring(0, open);
        final String suffix = pattern.substring(close + 1);
        for (final String range : pattern.substring(open + 1, close).split(",")) {
            final String r = range.trim();
            final int dash = r.indexOf('-');
            if (dash < 0) {
                expandOne(prefix + r + suffix, out);
                continue;
            }
            final String lo = r.substring(0, dash).trim();
            final String hi = r.substring(dash + 1).trim();
            if (!lo.matches("\\d+") || !hi.matches("\\d+")) {
                throw new IllegalArgumentException("bad range '" + r + "' in hostlist '" + pattern + "'");
            }
            final long from = Long.parseLong(lo);
            final long to = Long.parseLong(hi);
            if (to < from || to - from > LIMIT) {
                throw new IllegalArgumentException("bad range '" + r + "' in hostlist '" + pattern + "'");
            }
            final int width = lo.length() > 1 && lo.startsWith("0") ? lo.length() : 0;
            for (long n = from; n <= to; n++) {
                final String num = width > 0 ? String.format("%0" + width + "d", n) : Long.toString(n);
                expandOne(prefix + num + suffix, out);
            }
        }
    }
}
