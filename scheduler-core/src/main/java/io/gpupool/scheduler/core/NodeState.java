package io.gpupool.scheduler.core;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.TreeMap;

/**
 * The live state of one node: per-GPU allocation and health in primitive arrays, free CPU and
 * memory, fabric link condition, and the jobs placed on it.
 */
final class NodeState {
    final int slot;
    NodeSpec spec;
    final int modelIndex;
    int leafIndex;
    int spineIndex;
    final int gpuCount;
    boolean infiniband;
    boolean roce;

    /** Milli-GPU in use per GPU: 1000 when a whole-GPU job holds it. */
    final int[] usedMilli;
    /** GPU memory in use by shares, per GPU. */
    final long[] usedGpuMemMib;
    /** Whether a GPU's use is shares (true) or a whole job (false); only meaningful when usedMilli > 0. */
    final boolean[] shared;
    final int[] healthBits;
    final int[] xid;
    final int[] temperatureC;
    final int[] utilisationPct;
    long lastTelemetryMs;

    long cpuFree;
    long memFree;
    /** Healthy GPUs with nothing on them: the bucket key of the capacity index. */
    int freeWhole;

    /** Per port: true when the port is down, flapping or has rising error counters. */
    final TreeMap<String, String> badPorts = new TreeMap<>();
    /** True when some port is down (multi-node jobs on it are evicted), not only degraded. */
    boolean linkDown;
    /** Utilisation of the node's busiest fabric port toward its leaf, percent; -1 = unknown. */
    int uplinkPct = -1;
    /** Whether {@link #uplinkPct} is in its leaf's sum (PoolState#countUplink); derived, not stored. */
    boolean uplinkCounted;

    /** Per GPU: its NVLink (else PCIe) group; and whether all GPUs share one group. */
    final int[] affinity;
    boolean oneAffinityGroup;

    /** Cached expected fragmentation of the node as it is, valid while {@code fragMixVersion} matches. */
    long fragNow;
    int fragMixVersion = -1;
    /** Bumped on every change of allocation, health or description: keys the caches below. */
    int version;
    /**
     * Cached readiness for a reservation, per GPU count asked (see ReservationPlanner): shapes take
     * turns at the head of a mixed queue, and one slot for all of them would be recomputed every time.
     */
    final Readiness[] ready = new Readiness[NodeSpec.MAX_GPUS_PER_NODE + 1];

    /** When the node has k GPUs and the CPU and memory free, as of node version and estimates. */
    static final class Readiness {
        int version = -1;
        long cpu;
        long mem;
        long at;
        long validUntil;
    }

    /** Something about the node changed: drop what was cached about it, and say so to what follows the changes. */
    void changed() {
        fragMixVersion = -1;
        version++;
        changes.changed(slot);
    }

    /** Where {@link #changed} is told (the pool's, shared by its nodes). */
    private final NodeChanges changes;

    /** Jobs with a part on this node, in placement order. */
    final List<Job> jobs = new ArrayList<>(4);

    NodeState(final int slot, final NodeSpec spec, final int modelIndex, final int leafIndex,
              final int spineIndex, final long nowMs, final NodeChanges changes) {
        this.slot = slot;
        this.changes = changes;
        this.spec = spec;
        this.modelIndex = modelIndex;
        this.leafIndex = leafIndex;
        this.spineIndex = spineIndex;
        this.gpuCount = spec.gpus().size();
        this.usedMilli = new int[gpuCount];
        this.usedGpuMemMib = new long[gpuCount];
        this.shared = new boolean[gpuCount];
        this.healthBits = new int[gpuCount];
        this.xid = new int[gpuCount];
        this.temperatureC = new int[gpuCount];
        Arrays.fill(temperatureC, -1);
        this.utilisationPct = new int[gpuCount];
        this.lastTelemetryMs = nowMs;
        this.cpuFree = spec.cpuMilli();
        this.memFree = spec.memoryMib();
        this.freeWhole = gpuCount;
        this.affinity = new int[gpuCount];
        describe(spec);
    }

    /** Takes a new inventory description with the same GPUs (count and model); allocations stay. */
    void describe(final NodeSpec newSpec) {
        this.spec = newSpec;
        this.infiniband = newSpec.hasInfiniband();
        this.roce = newSpec.hasRoce();
        boolean one = true;
        for (int g = 0; g < gpuCount; g++) {
            affinity[g] = newSpec.gpus().get(g).affinityGroup();
            one &= affinity[g] == affinity[0];
        }
        this.oneAffinityGroup = one;
    }

    String id() {
        return spec.nodeId();
    }

    boolean healthy(final int gpu) {
        return healthBits[gpu] == 0;
    }

    /** May take part in a multi-node job: no bad fabric port. */
    /** Whether the engine marked the node's telemetry stale (all its GPUs are marked together). */
    boolean telemetryStale() {
        return gpuCount > 0 && (healthBits[0] & GpuHealthState.STALE) != 0;
    }

    boolean linkOk() {
        return badPorts.isEmpty();
    }

    int recountFreeWhole() {
        int n = 0;
        for (int g = 0; g < gpuCount; g++) {
            if (usedMilli[g] == 0 && healthBits[g] == 0) {
                n++;
            }
        }
        return n;
    }

    int unhealthyCount() {
        int n = 0;
        for (int g = 0; g < gpuCount; g++) {
            if (healthBits[g] != 0) {
                n++;
            }
        }
        return n;
    }

    /** Free milli-GPU on healthy GPUs (whole and partial). */
    long freeMilliHealthy() {
        long n = 0;
        for (int g = 0; g < gpuCount; g++) {
            if (healthBits[g] == 0) {
                n += 1000 - usedMilli[g];
            }
        }
        return n;
    }

    String describeUnhealthy(final int gpu) {
        return GpuHealthState.describe(healthBits[gpu], xid[gpu], temperatureC[gpu]);
    }
}
