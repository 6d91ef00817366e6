package io.gpupool.scheduler.stream;

import io.gpupool.avro.GpuCondition;
import io.gpupool.avro.GpuHealth;
import io.gpupool.avro.GpuHealthChange;
import io.gpupool.avro.GpuSample;
import io.gpupool.avro.GpuSamples;
import io.gpupool.avro.UtilisationBandChange;
import io.gpupool.scheduler.journal.GpuReasonCodes;
import java.util.ArrayList;
import java.util.List;

/**
 * Reduces one GpuSamples record of a known node to the facts that changed: a GPU's health
 * (critical Xid, uncorrectable ECC, row-remap failure or pending, overheating) or its utilisation
 * band. Validates the whole record first so that a bad one changes nothing.
 */
final class GpuTelemetryReducer {
    private final TelemetryRules rules;

    GpuTelemetryReducer(final TelemetryRules rules) {
        this.rules = rules;
    }

    /** The facts to journal, in GPU order; the node's state is updated. */
    List<Object> reduce(final NodeFacts node, final GpuSamples samples) throws InvalidTelemetryException {
        validate(node, samples);
        final List<Object> facts = new ArrayList<>();
        for (final GpuSample s : samples.getGpus()) {
            final int g = node.gpuIndex(s.getUuid());
            final List<Integer> xids = s.getXidCodes() == null ? List.of() : s.getXidCodes();
            for (final int x : xids) {
                if (rules.criticalXids().contains(x) && node.stickyXid.get(g) != x) {
                    node.stickyXid.set(g, x);
                    node.dirty = true;
                }
            }
            final List<GpuCondition> conditions = conditions(node.stickyXid.get(g), s);
            final String reasonCode = GpuReasonCodes.joined(conditions);
            if (!reasonCode.equals(node.gpuHealth.get(g))) {
                node.gpuHealth.set(g, reasonCode);
                node.dirty = true;
                final boolean overheat = conditions.contains(GpuCondition.OVERHEAT);
                facts.add(GpuHealthChange.newBuilder()
                        .setNodeId(samples.getNodeId())
                        .setGpuUuid(s.getUuid())
                        .setGpuIndex(g)
                        .setHealth(conditions.isEmpty() ? GpuHealth.HEALTHY : GpuHealth.UNHEALTHY)
                        .setReasonCode(conditions.isEmpty() ? null : reasonCode)
                        .setEvidence(conditions.isEmpty() ? "healthy again" : evidence(node.stickyXid.get(g), s))
                        .setXidCodes(node.stickyXid.get(g) == 0 ? List.of() : List.of(node.stickyXid.get(g)))
                        .setConditions(conditions)
                        .setTemperatureC(overheat ? s.getTemperatureC() : null)
                        .build());
            }
            if (s.getUtilizationGpuPct() != null) {
                final int band = TelemetryRules.band(s.getUtilizationGpuPct(), node.gpuBand.get(g));
                if (band != node.gpuBand.get(g)) {
                    node.gpuBand.set(g, band);
                    node.dirty = true;
                    facts.add(UtilisationBandChange.newBuilder()
                            .setNodeId(samples.getNodeId())
                            .setGpuUuid(s.getUuid())
                            .setGpuIndex(g)
                            .setBand(TelemetryRules.bandOf(band))
                            .setUtilizationGpuPct(s.getUtilizationGpuPct())
                            .setMemoryUsedMiB(s.getMemoryUsedMiB())
                            .build());
                }
            }
        }
        return facts;
    }

    private void validate(final NodeFacts node, final GpuSamples samples) throws InvalidTelemetryException {
        for (final GpuSample s : samples.getGpus()) {
            if (node.gpuIndex(s.getUuid()) < 0) {
                throw new InvalidTelemetryException("GPU " + s.getUuid() + " is not in node "
                        + samples.getNodeId() + "'s inventory");
            }
            pct("utilization.gpu", s.getUtilizationGpuPct());
            pct("utilization.memory", s.getUtilizationMemoryPct());
            final Double t = s.getTemperatureC();
            if (t != null && (t.isNaN() || t < TelemetryRules.MIN_TEMPERATURE_C || t > TelemetryRules.MAX_TEMPERATURE_C)) {
                throw new InvalidTelemetryException("temperature " + t + " C of GPU " + s.getUuid() + " is out of range");
            }
            if (s.getMemoryUsedMiB() != null && s.getMemoryUsedMiB() < 0) {
                throw new InvalidTelemetryException("negative memory used on GPU " + s.getUuid());
            }
            if (s.getEccUncorrectableVolatile() != null && s.getEccUncorrectableVolatile() < 0) {
                throw new InvalidTelemetryException("negative ECC count on GPU " + s.getUuid());
            }
        }
    }

    private static void pct(final String what, final Double v) throws InvalidTelemetryException {
        if (v != null && (v.isNaN() || v < 0 || v > 100)) {
            throw new InvalidTelemetryException(what + " " + v + " % is out of range 0-100");
        }
    }

    /** The conditions that take the GPU out of service, dominant first; empty when healthy. */
    private List<GpuCondition> conditions(final int xid, final GpuSample s) {
        final List<GpuCondition> c = new ArrayList<>(4);
        if (xid != 0) {
            c.add(GpuCondition.XID);
        }
        if (s.getEccUncorrectableVolatile() != null && s.getEccUncorrectableVolatile() > 0) {
            c.add(GpuCondition.ECC_UNCORRECTABLE);
        }
        if (Boolean.TRUE.equals(s.getRemappedRowsFailure())) {
            c.add(GpuCondition.ROW_REMAP_FAILURE);
        }
        if (Boolean.TRUE.equals(s.getRemappedRowsPending())) {
            c.add(GpuCondition.ROW_REMAP_PENDING);
        }
        if (s.getTemperatureC() != null && s.getTemperatureC() > rules.overheatC()) {
            c.add(GpuCondition.OVERHEAT);
        }
        return c;
    }

    private String evidence(final int xid, final GpuSample s) {
        final List<String> e = new ArrayList<>(4);
        if (xid != 0) {
            e.add("Xid " + xid);
        }
        if (s.getEccUncorrectableVolatile() != null && s.getEccUncorrectableVolatile() > 0) {
            e.add(s.getEccUncorrectableVolatile() + " uncorrectable ECC errors");
        }
        if (Boolean.TRUE.equals(s.getRemappedRowsFailure())) {
            e.add("row remap failed");
        }
        if (Boolean.TRUE.equals(s.getRemappedRowsPending())) {
            e.add("row remap pending");
        }
        if (s.getTemperatureC() != null && s.getTemperatureC() > rules.overheatC()) {
            e.add("temperature " + Math.round(s.getTemperatureC()) + " C");
        }
        return String.join(", ", e);
    }
}
