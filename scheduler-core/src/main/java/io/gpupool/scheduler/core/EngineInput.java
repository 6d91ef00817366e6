package io.gpupool.scheduler.core;

import java.util.Objects;

/**
 * Everything the engine reacts to. Each input carries its stream-time timestamp in ms (the
 * journal entry's timestamp); the engine never reads a clock.
 *
 * <p>{@link #accept} hands an input to the {@link Visitor} method for its kind. Every record must
 * implement it and every visitor must implement a method for every record, so the compiler checks
 * that a handler of inputs handles all of them (Java 17 has no pattern-matching switch without
 * preview features; this is the exhaustive dispatch it does check).
 */
public sealed interface EngineInput {

    long timestampMs();

    /** Calls the visitor's method for this kind of input and returns what it returns. */
    <R> R accept(Visitor<R> visitor);

    /** One method per kind of input: what a handler of every input implements. */
    interface Visitor<R> {
        R visit(NodeUpsert input);

        R visit(NodeRemoval input);

        R visit(GpuHealthFact input);

        R visit(GpuUtilisationFact input);

        R visit(NodeHeartbeat input);

        R visit(LinkFact input);

        R visit(NodeUplinkFact input);

        R visit(LeafUplinkFact input);

        R visit(SubmitJob input);

        R visit(CancelJob input);

        R visit(JobReport input);

        R visit(ClockTick input);
    }

    /** A node appeared or its inventory changed. */
    record NodeUpsert(long timestampMs, NodeSpec node) implements EngineInput {
        public NodeUpsert {
            Objects.requireNonNull(node, "node");
        }

        @Override
        public <R> R accept(final Visitor<R> visitor) {
            return visitor.visit(this);
        }
    }

    /** A node left the pool; its jobs are evicted. */
    record NodeRemoval(long timestampMs, String nodeId) implements EngineInput {
        public NodeRemoval {
            Objects.requireNonNull(nodeId, "nodeId");
        }

        @Override
        public <R> R accept(final Visitor<R> visitor) {
            return visitor.visit(this);
        }
    }

    /**
     * The current health of one GPU (it replaces the previous fact for that GPU).
     *
     * @param xid              the last Xid the GPU reported and that still applies, 0 for none
     * @param eccUncorrectable uncorrectable ECC errors seen
     * @param remapFailure     a row remap failed
     * @param remapPending     a row remap waits for a reset
     * @param temperatureC     GPU temperature, or -1 when unknown
     */
    record GpuHealthFact(long timestampMs, String nodeId, int gpu, int xid, boolean eccUncorrectable,
                         boolean remapFailure, boolean remapPending, int temperatureC) implements EngineInput {
        public GpuHealthFact {
            Objects.requireNonNull(nodeId, "nodeId");
        }

        public static GpuHealthFact healthy(final long ts, final String nodeId, final int gpu) {
            return new GpuHealthFact(ts, nodeId, gpu, 0, false, false, false, -1);
        }

        @Override
        public <R> R accept(final Visitor<R> visitor) {
            return visitor.visit(this);
        }
    }

    /** The GPU's utilisation band moved (0-100 %). */
    record GpuUtilisationFact(long timestampMs, String nodeId, int gpu, int utilisationPct) implements EngineInput {
        public GpuUtilisationFact {
            Objects.requireNonNull(nodeId, "nodeId");
        }

        @Override
        public <R> R accept(final Visitor<R> visitor) {
            return visitor.visit(this);
        }
    }

    /** The node's collector is alive (telemetry arrived); keeps its GPUs from going stale. */
    record NodeHeartbeat(long timestampMs, String nodeId) implements EngineInput {
        public NodeHeartbeat {
            Objects.requireNonNull(nodeId, "nodeId");
        }

        @Override
        public <R> R accept(final Visitor<R> visitor) {
            return visitor.visit(this);
        }
    }

    /** The state of one fabric port of a node (replaces the previous fact for that port). */
    record LinkFact(long timestampMs, String nodeId, String port, boolean up, boolean flapping,
                    boolean errorsRising) implements EngineInput {
        public LinkFact {
            Objects.requireNonNull(nodeId, "nodeId");
            Objects.requireNonNull(port, "port");
        }

        @Override
        public <R> R accept(final Visitor<R> visitor) {
            return visitor.visit(this);
        }
    }

    /**
     * A node's uplink utilisation (its busiest fabric port toward the leaf, percent; -1 = no longer
     * known). The engine averages its leaf's nodes: the leaf is congested when the mean reaches
     * {@link EngineConfig#leafCongestedPct()}.
     */
    record NodeUplinkFact(long timestampMs, String nodeId, int uplinkPct) implements EngineInput {
        public NodeUplinkFact {
            Objects.requireNonNull(nodeId, "nodeId");
            if (uplinkPct < -1 || uplinkPct > 100) {
                throw new IllegalArgumentException("uplink utilisation must be 0-100 percent or -1 (unknown), got " + uplinkPct);
            }
        }

        @Override
        public <R> R accept(final Visitor<R> visitor) {
            return visitor.visit(this);
        }
    }

    /** A leaf's congestion judged outside the engine (journals of schedulers that judged it in stage 1). */
    record LeafUplinkFact(long timestampMs, String leaf, boolean congested, int utilisationPct) implements EngineInput {
        public LeafUplinkFact {
            Objects.requireNonNull(leaf, "leaf");
        }

        @Override
        public <R> R accept(final Visitor<R> visitor) {
            return visitor.visit(this);
        }
    }

    record SubmitJob(long timestampMs, JobSpec job) implements EngineInput {
        public SubmitJob {
            Objects.requireNonNull(job, "job");
        }

        @Override
        public <R> R accept(final Visitor<R> visitor) {
            return visitor.visit(this);
        }
    }

    record CancelJob(long timestampMs, String jobId, String reason) implements EngineInput {
        public CancelJob {
            Objects.requireNonNull(jobId, "jobId");
            reason = reason == null ? "" : reason;
        }

        @Override
        public <R> R accept(final Visitor<R> visitor) {
            return visitor.visit(this);
        }
    }

    /**
     * What the node side reports about one part of a placed job.
     *
     * @param placementId the placement the part belongs to (the decision id of its PLACED decision); the
     *                    engine applies the event only to that placement ("" names none and is refused)
     * @param nodeId      the node the part ran on ("" when the sink did not say: then it is not checked)
     */
    record JobReport(long timestampMs, String jobId, JobEventKind kind, String placementId, String nodeId,
                    String detail) implements EngineInput {
        public JobReport {
            Objects.requireNonNull(jobId, "jobId");
            Objects.requireNonNull(kind, "kind");
            placementId = placementId == null ? "" : placementId;
            nodeId = nodeId == null ? "" : nodeId;
            detail = detail == null ? "" : detail;
        }

        @Override
        public <R> R accept(final Visitor<R> visitor) {
            return visitor.visit(this);
        }
    }

    /** Stream time moved on: stale telemetry and deadlines are checked. */
    record ClockTick(long timestampMs) implements EngineInput {
        @Override
        public <R> R accept(final Visitor<R> visitor) {
            return visitor.visit(this);
        }
    }

    enum JobEventKind {
        STARTED,
        COMPLETED,
        FAILED,
        EVICTED,
        /** A running part was stopped by a RELEASE command (the sink's answer; the engine released it already). */
        RELEASED
    }
}
