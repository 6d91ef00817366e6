package io.gpupool.localstack.topics;

import io.gpupool.topics.TopicSpec;
import java.util.List;

/**
 * How one topic on a cluster compares to its spec.
 *
 * @param spec        what the catalog wants
 * @param state       the outcome
 * @param differences each way the cluster differs, in words ("retention.ms is 604800000, want -1")
 */
public record TopicStatus(TopicSpec spec, State state, List<String> differences) {

    public enum State {
        /** Exists and matches. */
        OK,
        /** Created by this run. */
        CREATED,
        /** Existed with differing configs, which this run changed to the spec. */
        ALTERED,
        /** Does not exist (only when verifying). */
        MISSING,
        /** Exists but differs from the spec. */
        DIFFERS
    }

    public TopicStatus {
        differences = List.copyOf(differences);
    }

    public boolean ok() {
        return state == State.OK || state == State.CREATED || state == State.ALTERED;
    }

    /** One line for a terminal: {@code gpupool.journal  OK} or the differences. */
    public String describe() {
        final String base = String.format("%-28s %s", spec.name(), state);
        return differences.isEmpty() ? base : base + ": " + String.join("; ", differences);
    }
}
