package io.gpupool.scheduler.query;

import io.gpupool.scheduler.core.JobState;
import io.gpupool.scheduler.core.JobView;
import io.gpupool.scheduler.core.PlacementPart;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.EnumSet;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Which jobs {@code GET /jobs} lists: {@code state} (queued, running, finished, all; comma-separated; running is
 * placed or running, finished any end state the engine still keeps) and optional {@code pool}, {@code tenant}
 * and {@code node} (a job with a part on it).
 */
record JobFilter(Set<Group> states, String pool, String tenant, String node) {

    /** The state groups a user asks for. */
    enum Group { QUEUED, RUNNING, FINISHED }

    /** A filter the query string does not make sense as, with the fix. */
    static final class BadFilter extends IllegalArgumentException {
        private static final long serialVersionUID = 1L;

        BadFilter(final String message) {
            super(message);
        }
    }

    static JobFilter of(final Map<String, String> query) {
        final String raw = query.get("state");
        if (raw == null || raw.isBlank()) {
            throw new BadFilter("say which jobs: /jobs?state=queued|running|finished|all (comma-separated); one job: /jobs/{id}");
        }
        final EnumSet<Group> states = EnumSet.noneOf(Group.class);
        for (final String s : raw.split(",")) {
            final String v = s.trim().toLowerCase(Locale.ROOT);
            switch (v) {
                case "all" -> states.addAll(EnumSet.allOf(Group.class));
                case "queued" -> states.add(Group.QUEUED);
                case "running", "placed" -> states.add(Group.RUNNING);
                case "finished", "completed", "failed", "cancelled", "rejected", "evicted" -> states.add(Group.FINISHED);
                default -> throw new BadFilter("unknown state '" + s.trim()
                        + "': use queued, running, finished or all (comma-separated)");
            }
        }
        return new JobFilter(states, blankToNull(query.get("pool")), blankToNull(query.get("tenant")),
                blankToNull(query.get("node")));
    }

    boolean wantsPool(final String p) {
        return pool == null || pool.equals(p);
    }

    boolean wants(final JobView j) {
        if (tenant != null && !tenant.equals(j.tenant())) {
            return false;
        }
        if (node != null && j.placement().stream().map(PlacementPart::nodeId).noneMatch(node::equals)) {
            return false;
        }
        return states.contains(group(j.state()));
    }

    static Group group(final JobState s) {
        return s == JobState.QUEUED ? Group.QUEUED : s.holdsResources() ? Group.RUNNING : Group.FINISHED;
    }

    /** The same filter as a query string, for asking the other instances. */
    String toQuery() {
        final StringBuilder b = new StringBuilder("state=");
        b.append(String.join(",", states.stream().map(g -> g.name().toLowerCase(Locale.ROOT)).toList()));
        param(b, "pool", pool);
        param(b, "tenant", tenant);
        param(b, "node", node);
        return b.toString();
    }

    private static void param(final StringBuilder b, final String name, final String value) {
        if (value != null) {
            b.append('&').append(name).append('=').append(URLEncoder.encode(value, StandardCharsets.UTF_8));
        }
    }

    private static String blankToNull(final String s) {
        return s == null || s.isBlank() ? null : s.trim();
    }
}
