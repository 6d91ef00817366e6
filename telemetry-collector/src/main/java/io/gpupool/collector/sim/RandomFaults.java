package io.gpupool.collector.sim;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Faults that strike the simulated fleet by seeded chance, for long runs of {@code gpupool up}
 * and soak tests: each tick, each node has {@code probabilityPerNodeTick} of getting one fault,
 * whose kind, GPU or port are drawn from the same seeded noise. Lasting faults (overheating,
 * link down, flapping, silence) end after {@code faultTicks} ticks. The same seed gives the same
 * faults at the same ticks.
 */
public final class RandomFaults {
    /** Xid codes that take a GPU out of service in the scheduler's health rules. */
    private static final int[] XIDS = {48, 63, 64, 74, 79, 92, 94, 95, 119};

    private final long seed;
    private final double probabilityPerNodeTick;
    private final long faultTicks;
    private final Map<String, Long> clearAt = new HashMap<>();

    public RandomFaults(final long seed, final double probabilityPerNodeTick, final long faultTicks) {
        if (probabilityPerNodeTick < 0 || probabilityPerNodeTick > 1 || faultTicks < 1) {
            throw new IllegalArgumentException("fault probability must be in [0, 1] and faults last at least 1 tick");
        }
        this.seed = seed;
        this.probabilityPerNodeTick = probabilityPerNodeTick;
        this.faultTicks = faultTicks;
    }

    /** Ends the faults that have run their course, then draws this tick's new ones. */
    synchronized void apply(final long tick, final List<String> nodes, final int gpusPerNode, final List<List<String>> hcas,
            final FleetFaults faults) {
        clearAt.entrySet().removeIf(e -> {
            if (e.getValue() <= tick) {
                faults.clear(e.getKey());
                return true;
            }
            return false;
        });
        for (int n = 0; n < nodes.size(); n++) {
            if (Noise.unit(seed, tick, n, 0, 11) >= probabilityPerNodeTick) {
                continue;
            }
            final String node = nodes.get(n);
            final int gpu = (int) (Noise.unit(seed, tick, n, 0, 12) * gpusPerNode);
            final List<String> ports = hcas.get(n);
            final String hca = ports.isEmpty() ? null : ports.get((int) (Noise.unit(seed, tick, n, 0, 13) * ports.size()));
            final int kind = (int) (Noise.unit(seed, tick, n, 0, 14) * 5);
            switch (kind) {
                case 0:
                    faults.xid(node, gpu, XIDS[(int) (Noise.unit(seed, tick, n, 0, 15) * XIDS.length)]);
                    break;
                case 1:
                    faults.overheat(node, gpu, 90 + 10 * Noise.unit(seed, tick, n, 0, 16));
                    clearAt.put(node, tick + faultTicks);
                    break;
                case 2:
                    if (hca != null) {
                        faults.linkDown(node, hca);
                        clearAt.put(node, tick + faultTicks);
                    }
                    break;
                case 3:
                    if (hca != null) {
                        faults.linkFlapping(node, hca);
                        clearAt.put(node, tick + faultTicks);
                    }
                    break;
                default:
                    faults.silence(node);
                    clearAt.put(node, tick + faultTicks);
                    break;
            }
        }
    }
}
