package io.gpupool.scheduler.core;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A deterministic engine state that fills every snapshot section (queue, reservation, standing plans,
 * consolidation guard, uplinks, placement identity, bad ports, ...) and uses most enum constants, and
 * the snapshot fixtures written from it: {@code snapshots/engine-v5.bin} was written by the version 5
 * codec before enums went by name, so that old bytes stay readable by every later build.
 * {@link SnapshotFixtureWriter} (re)writes the fixture of the current version.
 */
final class SnapshotFixtures {
    static final EngineConfig CONFIG = EngineConfig.fromSettings(Map.of("pool", "p", "policy", "fgd",
            "consolidation-max-evictions", "3", "consolidation-cooldown-ms", "5000",
            "consolidation-window-ms", "20000", "consolidation-window-max-evictions", "4"));

    private SnapshotFixtures() {
    }

    /** A random stream, then a tail for what it never does: networks, node scope, preemption, uplinks, a failure. */
    static List<EngineInput> inputs() {
        final List<EngineInput> in = new ArrayList<>(RandomStreams.stream(5, 200));
        final long t = in.get(in.size() - 1).timestampMs() + 1_000;
        in.add(new EngineInput.NodeUpsert(t, Pools.node("x0", "lx", "s9", 8, "H100", 8)));
        in.add(new EngineInput.NodeUpsert(t, Pools.node("x1", "lx", "s9", 8, "H100", 4)));
        in.add(new EngineInput.NodeUplinkFact(t + 1, "x0", 40));
        in.add(new EngineInput.LeafUplinkFact(t + 2, "lx", true, 90));
        in.add(new EngineInput.SubmitJob(t + 3, JobSpec.builder("ib").tenant("t9").priorityClass(PriorityClass.BEST_EFFORT)
                .preemptible(true).gang(1, 8).models("H100").topology(GangScope.NODE, true).network(Network.INFINIBAND)
                .build()));
        in.add(new EngineInput.SubmitJob(t + 4, JobSpec.builder("roce").tenant("t9").priorityClass(PriorityClass.BATCH)
                .preemptible(true).gang(1, 4).models("H100").network(Network.ROCE).runtimeEstimateMs(60_000).build()));
        in.add(new EngineInput.SubmitJob(t + 5, JobSpec.builder("prod").tenant("t8").priorityClass(PriorityClass.PRODUCTION)
                .gang(2, 8).models("H100").topology(GangScope.LEAF, false).deadline(t + 3_600_000, false).build()));
        in.add(new EngineInput.JobReport(t + 6, "roce", EngineInput.JobEventKind.STARTED, RandomStreams.CURRENT, "", ""));
        in.add(new EngineInput.GpuHealthFact(t + 7, "x1", 1, 79, true, false, false, 90));
        in.add(new EngineInput.ClockTick(t + 8));
        return in;
    }

    /** The engine after {@link #inputs()}. */
    static PoolEngine engine() {
        final PoolEngine e = new PoolEngine(CONFIG);
        for (final EngineInput i : inputs()) {
            e.apply(RandomStreams.bind(e, i));
        }
        return e;
    }

    static byte[] resource(final String name) {
        try (InputStream in = SnapshotFixtures.class.getResourceAsStream("/snapshots/" + name)) {
            if (in == null) {
                throw new IllegalStateException("no test resource snapshots/" + name);
            }
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
