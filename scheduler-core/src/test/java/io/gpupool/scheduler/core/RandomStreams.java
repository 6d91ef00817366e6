package io.gpupool.scheduler.core;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/** Random pools and input streams from a seed (seeded: the same seed gives the same stream). */
final class RandomStreams {
    /** Placement id of a generated job event that means "the placement the job holds when applied". */
    static final String CURRENT = "@current";

    /** The input as applied to {@code e}: a job event about {@link #CURRENT} names the job's placement now. */
    static EngineInput bind(final PoolEngine e, final EngineInput in) {
        if (in instanceof EngineInput.JobReport j && CURRENT.equals(j.placementId())) {
            return new EngineInput.JobReport(j.timestampMs(), j.jobId(), j.kind(), e.placementOf(j.jobId()), j.nodeId(),
                    j.detail());
        }
        return in;
    }

    private RandomStreams() {
    }

    static List<EngineInput> stream(final long seed, final int length) {
        final Random r = new Random(seed);
        final List<EngineInput> in = new ArrayList<>();
        final int leaves = 1 + r.nextInt(3);
        final List<String> nodes = new ArrayList<>();
        for (int l = 0; l < leaves; l++) {
            final int perLeaf = 1 + r.nextInt(4);
            for (int i = 0; i < perLeaf; i++) {
                final String id = "n" + l + "-" + i;
                nodes.add(id);
                final String model = r.nextInt(4) == 0 ? "A100" : "H100";
                in.add(new EngineInput.NodeUpsert(0, Pools.node(id, "l" + l, "s" + (l / 2), 1 + r.nextInt(8), model,
                        1 + r.nextInt(8))));
            }
        }
        long ts = 1;
        int jobs = 0;
        for (int i = 0; i < length; i++) {
            ts += r.nextInt(1000);
            final int op = r.nextInt(100);
            final String node = nodes.get(r.nextInt(nodes.size()));
            if (op < 45) {
                final JobSpec.Builder b = JobSpec.builder("j" + jobs++).tenant("t" + r.nextInt(3))
                        .priorityClass(PriorityClass.values()[r.nextInt(3)]).preemptible(r.nextBoolean())
                        .cpuMilli(r.nextInt(3) * 10_000L).memoryMib(r.nextInt(3) * 100_000L);
                final int kind = r.nextInt(10);
                if (kind < 4) {
                    b.gang(1, 1 + r.nextInt(4));
                } else if (kind < 6) {
                    b.gang(2 + r.nextInt(3), 1 + r.nextInt(8)).topology(GangScope.values()[1 + r.nextInt(3)], r.nextBoolean());
                } else if (kind < 9) {
                    b.share(100 * (1 + r.nextInt(9)), r.nextInt(3) * 20_000L);
                } else {
                    b.gang(1, 0).cpuMilli(1_000);
                }
                if (r.nextInt(5) == 0) {
                    b.models(r.nextBoolean() ? "A100" : "H100");
                }
                if (r.nextInt(10) == 0) {
                    b.placeNowOrReject(true);
                }
                in.add(new EngineInput.SubmitJob(ts, b.build()));
            } else if (op < 75) {
                final EngineInput.JobEventKind k = EngineInput.JobEventKind.values()[r.nextInt(5)];
                // mostly about the job's placement of the moment ({@link #bind}); else a made-up or older one
                final String placement = r.nextInt(5) == 0 ? "p-" + (1 + r.nextInt(60)) : CURRENT;
                in.add(new EngineInput.JobReport(ts, "j" + r.nextInt(Math.max(1, jobs)), k, placement, "", ""));
            } else if (op < 80) {
                in.add(new EngineInput.CancelJob(ts, "j" + r.nextInt(Math.max(1, jobs)), "test"));
            } else if (op < 88) {
                final boolean bad = r.nextInt(3) == 0;
                in.add(new EngineInput.GpuHealthFact(ts, node, r.nextInt(8), bad ? 79 : 0, false, false, false, 50));
            } else if (op < 93) {
                in.add(new EngineInput.LinkFact(ts, node, "p" + r.nextInt(2), r.nextInt(3) != 0, r.nextInt(4) == 0, false));
            } else if (op < 95) {
                in.add(new EngineInput.GpuUtilisationFact(ts, node, r.nextInt(8), r.nextInt(101)));
            } else if (op < 97) {
                in.add(new EngineInput.ClockTick(ts));
            } else if (op < 98) {
                in.add(new EngineInput.NodeRemoval(ts, node));
            } else {
                in.add(new EngineInput.NodeUpsert(ts, Pools.node(node, "l" + r.nextInt(leaves), "s0", 1 + r.nextInt(8),
                        "H100", 4)));
            }
        }
        return in;
    }
}
