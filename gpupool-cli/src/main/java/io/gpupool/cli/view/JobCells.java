package io.gpupool.cli.view;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;

/** The cells that {@code jobs}, {@code queue} and {@code explain} show of one job from the scheduler's answer. */
public final class JobCells {
    private JobCells() {
    }

    /** "n1:0-3 n2:0-3", a share as "c0:2(250m)"; "-" when the job holds nothing. */
    public static String placement(final JsonNode job) {
        final List<String> parts = new ArrayList<>();
        for (final JsonNode p : job.path("placement")) {
            final String share = p.path("gpuMilli").asInt(1000) < 1000 ? "(" + p.path("gpuMilli").asInt() + "m)" : "";
            parts.add(p.path("nodeId").asText() + ":" + ranges(p.path("gpus")) + share);
        }
        return parts.isEmpty() ? "-" : String.join(" ", parts);
    }

    /** GPU indexes as ranges: [0,1,2,3,6] is "0-3,6". */
    static String ranges(final JsonNode indexes) {
        final StringBuilder b = new StringBuilder();
        int i = 0;
        final int n = indexes.size();
        while (i < n) {
            int j = i;
            while (j + 1 < n && indexes.get(j + 1).asInt() == indexes.get(j).asInt() + 1) {
                j++;
            }
            if (b.length() > 0) {
                b.append(',');
            }
            b.append(indexes.get(i).asInt());
            if (j > i) {
                b.append('-').append(indexes.get(j).asInt());
            }
            i = j + 1;
        }
        return b.toString();
    }

    /** A time field in epoch ms, or null when the answer has none (absent, null or 0). */
    public static Long time(final JsonNode job, final String field) {
        final JsonNode v = job.path(field);
        return v.isNumber() && v.asLong() > 0 ? v.asLong() : null;
    }

    /** When the job started: reported running, else placed (null when neither). */
    public static Long started(final JsonNode job) {
        final Long s = time(job, "startedMs");
        return s != null ? s : time(job, "placedMs");
    }

    /** How long the job has run (running: since its start) or ran (finished: start to end); "-" while queued. */
    public static String elapsed(final JsonNode job, final HumanTime time) {
        if ("queued".equals(job.path("state").asText())) {
            return "-"; // a requeued job keeps its last placement's times: not what it runs now
        }
        final Long start = started(job);
        final Long end = time(job, "endedMs");
        if (start == null) {
            return "-";
        }
        return end != null ? HumanTime.duration(Math.max(0, end - start)) : time.since(start);
    }

    /**
     * The reason code and its message with times for people ("INSUFFICIENT_FREE_GPUS: needs ..."); for a job with no
     * current reason (placed, finished), its last decision's.
     */
    public static String reason(final JsonNode job, final HumanTime time) {
        final JsonNode r = job.path("reason");
        if (!r.isMissingNode() && !r.isNull()) {
            return r.path("code").asText("") + ": " + time.text(r.path("message").asText(""));
        }
        final JsonNode d = job.path("lastDecision");
        if (!d.isMissingNode() && !d.isNull()) {
            return d.path("reasonCode").asText("") + ": " + time.text(d.path("message").asText(""));
        }
        return "-";
    }

    /** A relative time, or "-". */
    public static String relative(final Long epochMs, final HumanTime time) {
        return epochMs == null ? "-" : time.relative(epochMs);
    }

    /** A local time, or "-". */
    public static String local(final Long epochMs, final HumanTime time) {
        return epochMs == null ? "-" : time.local(epochMs);
    }
}
