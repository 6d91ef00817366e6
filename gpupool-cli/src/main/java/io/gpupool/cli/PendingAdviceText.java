package io.gpupool.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;

/**
 * The way out of a waiting job's reason, as {@code gpupool explain JOB} prints it from the query API's
 * {@code advice} block: what single change to the request would place it now (with the submit flag that
 * makes it), which running jobs it waits for and when they are expected to end, and the jobs ahead of it.
 * Times are relative to the pool's stream time in the answer's view, the clock the scheduler decides by.
 */
final class PendingAdviceText {

    private PendingAdviceText() {
    }

    static void print(final PrintWriter out, final JsonNode job) {
        final JsonNode a = job.path("advice");
        if (a.isMissingNode() || a.isNull()) {
            return;
        }
        final long now = job.path("view").path("streamTimeMs").asLong();
        if (a.path("wouldRunIf").size() == 0) {
            out.println("  would run now if: no single change to the request places it now");
        } else {
            out.println("  would run now if (any one of):");
            for (final JsonNode c : a.path("wouldRunIf")) {
                out.printf("    %s (%s)%n", c.path("text").asText(), flag(c));
            }
        }
        final int holders = a.path("waitingForCount").asInt();
        if (holders > 0) {
            final List<String> shown = new ArrayList<>();
            for (final JsonNode h : a.path("waitingFor")) {
                shown.add("job " + h.path("jobId").asText() + " (tenant " + h.path("tenant").asText() + ", "
                        + gpus(h.path("gpuMilli").asLong()) + " on " + String.join(",", strings(h.path("nodes")))
                        + ", " + ends(h.path("expectedEndMs"), now) + ")");
            }
            out.printf("  waiting for: %s%s%n", String.join("; ", shown),
                    holders > shown.size() ? "; and " + (holders - shown.size()) + " more" : "");
        }
        if (holders == 0 && !a.path("fitsNow").asBoolean()) {
            out.println("  waiting for: no running job whose end alone frees its room (see the reason)");
        }
        final int ahead = a.path("jobsAheadCount").asInt();
        if (ahead > 0) {
            final List<String> ids = strings(a.path("jobsAhead"));
            out.printf("  jobs ahead in the queue: %s%s%n", String.join(", ", ids),
                    ahead > ids.size() ? " and " + (ahead - ids.size()) + " more" : "");
        }
        for (final JsonNode n : a.path("notes")) {
            out.printf("  note: %s%n", n.asText());
        }
    }

    /** The {@code gpupool submit} flag that makes the change. */
    private static String flag(final JsonNode c) {
        final String to = c.path("to").asText();
        return switch (c.path("field").asText()) {
            case "topologyRequired" -> "--topology-mode preferred";
            case "network" -> "--network " + to;
            case "allowedModels" -> "--gpu-model '" + to + "'";
            case "runtimeEstimateMs" -> "--runtime-estimate " + atMost(Long.parseLong(to));
            case "nodes" -> "--nodes " + to;
            case "gpusPerNode" -> "--gpus " + to;
            default -> c.path("field").asText() + " " + to;
        };
    }

    /** An estimate no longer than {@code ms}, in the largest whole unit the flag reads. */
    private static String atMost(final long ms) {
        return ms >= 60_000 && ms % 60_000 == 0 ? ms / 60_000 + "m" : ms >= 1000 ? ms / 1000 + "s" : ms + "ms";
    }

    private static String ends(final JsonNode endMs, final long now) {
        if (endMs.isNull() || endMs.isMissingNode()) {
            return "no expected end";
        }
        final long left = endMs.asLong() - now;
        return left <= 0 ? "ends ~now, past its estimate" : "ends ~in " + duration(left);
    }

    /** 45s, 12m, 3h05m: coarse, as an expected end deserves. */
    static String duration(final long ms) {
        final long s = Math.max(1, ms / 1000);
        if (s < 60) {
            return s + "s";
        }
        final long m = s / 60;
        return m < 60 ? m + "m" : String.format("%dh%02dm", m / 60, m % 60);
    }

    private static String gpus(final long milli) {
        return milli % 1000 == 0 ? milli / 1000 + " GPU" + (milli == 1000 ? "" : "s") : milli + " milli-GPU";
    }

    private static List<String> strings(final JsonNode array) {
        final List<String> out = new ArrayList<>();
        array.forEach(n -> out.add(n.asText()));
        return out;
    }
}
