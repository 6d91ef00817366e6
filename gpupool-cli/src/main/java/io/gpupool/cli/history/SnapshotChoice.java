package io.gpupool.cli.history;

import io.gpupool.scheduler.audit.AuditRange;
import io.gpupool.scheduler.journal.EngineSnapshot;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Which engine snapshot each pool starts from: {@code none} (the whole journal), {@code latest},
 * an offset (that pool's snapshot covering exactly that journal offset), or {@code auto}: the newest
 * snapshot before the audited range when the range has a start, else none. Snapshots written by an
 * older scheduler (format 1, without the job book) are passed over by auto and latest and refused
 * when named by offset.
 */
public final class SnapshotChoice {
    private SnapshotChoice() {
    }

    public static Map<String, EngineSnapshot> choose(final String choice, final Map<String, List<EngineSnapshot>> all,
                                                     final AuditRange range) {
        final Map<String, EngineSnapshot> chosen = new HashMap<>();
        final String c = choice == null ? "auto" : choice.trim();
        if (c.equals("none")) {
            return chosen;
        }
        if (c.equals("auto") && range.fromOffset() == Long.MIN_VALUE && range.fromMs() == Long.MIN_VALUE) {
            return chosen;
        }
        for (final Map.Entry<String, List<EngineSnapshot>> e : all.entrySet()) {
            EngineSnapshot best = null;
            for (final EngineSnapshot s : e.getValue()) { // oldest first
                final boolean fits = switch (c) {
                    // a format-1 snapshot (older scheduler) lacks the job book: never chosen on its own
                    case "auto" -> s.hasJobBook() && (s.offset() < range.fromOffset() || s.timestampMs() < range.fromMs());
                    case "latest" -> s.hasJobBook() && s.offset() <= range.toOffset() && s.timestampMs() <= range.toMs();
                    default -> s.offset() == parse(c);
                };
                if (fits) {
                    best = s;
                }
            }
            if (best != null && !best.hasJobBook()) {
                throw new IllegalArgumentException(best.describe() + " was written by an older scheduler and lacks the"
                        + " job book an audit needs (a resubmitted job id would look new); choose a newer snapshot or"
                        + " --snapshot none; snapshots: " + describe(all));
            }
            if (best != null) {
                chosen.put(e.getKey(), best);
            }
        }
        if (!c.equals("auto") && !c.equals("latest") && chosen.isEmpty()) {
            throw new IllegalArgumentException("no engine snapshot covers journal offset " + c + "; snapshots: "
                    + describe(all));
        }
        return chosen;
    }

    private static long parse(final String c) {
        try {
            return Long.parseLong(c);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("--snapshot takes auto, none, latest or a journal offset, not '" + c + "'");
        }
    }

    public static String describe(final Map<String, List<EngineSnapshot>> all) {
        final StringBuilder sb = new StringBuilder();
        new TreeMap<>(all).forEach((pool, list) -> sb.append(pool).append(' ')
                .append(list.stream().map(s -> s.offset() + (s.hasJobBook() ? "" : " (format 1)")).toList())
                .append("; "));
        return sb.length() == 0 ? "none" : sb.toString();
    }
}
