package io.gpupool.scheduler.stream;

import java.util.ArrayList;
import java.util.List;

/**
 * Stage 1's route of one job id: the submits routed under it that the placer still holds a record of,
 * in arrival order, each with the pool it named. Cancels and events of the job go to the pool of the
 * first. A submit opens its entry; the placer's {@link RouteEnds notice} closes it, when the
 * submit was rejected without taking the id, or when the job's record expired (the finished-job
 * retention). The route goes with its last entry, so the store holds what the placer's job book holds.
 *
 * <p>Stored as text: a marker character, then per entry the command id and the pool, each as
 * {@code LENGTH:TEXT} (ids are the client's, so no separator character can be trusted). A value without
 * the marker is a route from before entries existed: the bare pool, closed only by an expiry.
 *
 * @param open the open entries, oldest first; never empty
 */
record JobRoute(List<Entry> open) {
    /** Beyond this many open entries (duplicate submits in flight) a submit is journaled but not recorded. */
    static final int MAX_OPEN = 256;
    private static final char MARKER = '\u0001';

    /** @param commandId null: a route stored before entries existed (it has no command id) */
    record Entry(String commandId, String pool) {
    }

    JobRoute {
        open = List.copyOf(open);
        if (open.isEmpty()) {
            throw new IllegalArgumentException("a route has at least one open entry");
        }
    }

    static JobRoute of(final String commandId, final String pool) {
        return new JobRoute(List.of(new Entry(commandId, pool)));
    }

    /** The pool cancels and events of the job go to. */
    String pool() {
        return open.get(0).pool();
    }

    /** This route with the submit's entry added (unless it is there, a re-sent submit, or the route is full). */
    JobRoute opened(final String commandId, final String pool) {
        for (final Entry e : open) {
            if (commandId.equals(e.commandId())) {
                return this;
            }
        }
        if (open.size() >= MAX_OPEN) {
            return this;
        }
        final List<Entry> more = new ArrayList<>(open);
        more.add(new Entry(commandId, pool));
        return new JobRoute(more);
    }

    /**
     * This route without the entry of {@code commandId}, and on an expiry also without an entry from before
     * command ids were kept; null when nothing is left open.
     */
    JobRoute closed(final String commandId, final boolean expired) {
        final List<Entry> left = new ArrayList<>();
        for (final Entry e : open) {
            final boolean closes = e.commandId() == null ? expired : e.commandId().equals(commandId);
            if (!closes) {
                left.add(e);
            }
        }
        return left.isEmpty() ? null : new JobRoute(left);
    }

    String write() {
        final StringBuilder sb = new StringBuilder().append(MARKER);
        for (final Entry e : open) {
            field(sb, e.commandId() == null ? "" : e.commandId());
            field(sb, e.pool());
        }
        return sb.toString();
    }

    /** The route a stored value holds: one this class wrote, or a bare pool (the old form). */
    static JobRoute read(final String stored) {
        if (stored.isEmpty() || stored.charAt(0) != MARKER) {
            return of(null, stored);
        }
        final List<Entry> entries = new ArrayList<>();
        int at = 1;
        while (at < stored.length()) {
            final int[] cut = new int[1];
            final String commandId = field(stored, at, cut);
            final String pool = commandId == null ? null : field(stored, cut[0], cut);
            if (pool == null) {
                throw new IllegalArgumentException("unreadable job route at character " + at);
            }
            entries.add(new Entry(commandId.isEmpty() ? null : commandId, pool));
            at = cut[0];
        }
        return new JobRoute(entries);
    }

    private static void field(final StringBuilder sb, final String text) {
        sb.append(text.length()).append(':').append(text);
    }

    /** The field starting at {@code at}; {@code end[0]} is set to the index after it. Null: malformed. */
    private static String field(final String s, final int at, final int[] end) {
        final int colon = s.indexOf(':', at);
        if (colon < 0) {
            return null;
        }
        final int length;
        try {
            length = Integer.parseInt(s, at, colon, 10);
        } catch (final NumberFormatException e) {
            return null;
        }
        if (length < 0 || colon + 1 + length > s.length()) {
            return null;
        }
        end[0] = colon + 1 + length;
        return s.substring(colon + 1, end[0]);
    }
}
