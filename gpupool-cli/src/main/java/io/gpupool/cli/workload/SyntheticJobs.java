package io.gpupool.cli.workload;

import io.gpupool.avro.JobRequest;
import io.gpupool.avro.NetworkRequirement;
import io.gpupool.avro.TopologyMode;
import io.gpupool.avro.TopologyScope;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * A seeded, endless mix of the jobs a GPU pool sees: single GPUs (45%), shares of one GPU (25%),
 * whole 8-GPU nodes (20%) and gangs of 2-4 nodes on one leaf (10%), across four tenants and the
 * three priority classes (best-effort work is preemptible). Arrivals are a Poisson process at
 * {@code ratePerSecond}; runtimes are log-normal around 15 minutes of job time. The same seed gives
 * the same jobs in the same order; ids carry {@code runTag} so reruns on one data dir do not collide.
 */
public final class SyntheticJobs implements Iterator<TimedJob> {

    static final List<String> TENANTS = List.of("vision", "speech", "llm", "research");

    private final SplittableRandom random;
    private final String pool;
    private final String runTag;
    private final double ratePerSecond;
    private double clockMillis;
    private long count;

    public SyntheticJobs(final long seed, final String pool, final String runTag, final double ratePerSecond) {
        if (!(ratePerSecond > 0)) {
            throw new IllegalArgumentException("the job rate must be > 0 jobs/s, got " + ratePerSecond);
        }
        this.random = new SplittableRandom(seed);
        this.pool = pool;
        this.runTag = runTag;
        this.ratePerSecond = ratePerSecond;
    }

    @Override
    public boolean hasNext() {
        return true;
    }

    @Override
    public TimedJob next() {
        clockMillis += -Math.log(1 - random.nextDouble()) * 1000.0 / ratePerSecond;
        final long n = count++;
        final String tenant = TENANTS.get(random.nextInt(TENANTS.size()));
        final double classDraw = random.nextDouble();
        final String priorityClass = classDraw < 0.2 ? "production" : classDraw < 0.75 ? "batch" : "best-effort";
        final int priority = switch (priorityClass) {
            case "production" -> 100;
            case "batch" -> 50;
            default -> 0;
        };
        // Log-normal, median 15 min, clipped to 1 min .. 4 h of job time.
        final long runtime = Math.round(Math.min(4 * 3_600_000.0,
                Math.max(60_000.0, 900_000.0 * Math.exp(0.8 * random.nextGaussian()))));
        final JobRequest.Builder b = JobRequest.newBuilder().setTenant(tenant).setPool(pool)
                .setPriorityClass(priorityClass).setPriority(priority).setPreemptible(priorityClass.equals("best-effort"))
                .setSimulatedRuntimeMillis(runtime)
                // Half the users give an estimate (a rounded-up guess); the others leave it to the engine.
                .setRuntimeEstimateMillis(random.nextBoolean() ? roundUpToQuarterHour(runtime) : null)
                .setLabels(Map.of("generator", "synthetic"));
        final double kind = random.nextDouble();
        final String shape;
        if (kind < 0.45) {
            final int gpus = random.nextDouble() < 0.8 ? 1 : 2;
            b.setNodes(1).setGpusPerNode(gpus).setCpuMilliPerNode(8_000L * gpus).setMemoryMiBPerNode(65_536L * gpus);
            shape = gpus + "gpu";
        } else if (kind < 0.70) {
            final int milli = random.nextBoolean() ? 250 : 500;
            b.setNodes(1).setGpusPerNode(1).setGpuMilli(milli).setGpuMemoryMiB(milli * 40L)
                    .setCpuMilliPerNode(2_000L).setMemoryMiBPerNode(16_384L);
            shape = "m" + milli;
        } else if (kind < 0.90) {
            b.setNodes(1).setGpusPerNode(8).setCpuMilliPerNode(64_000L).setMemoryMiBPerNode(524_288L)
                    .setTopology(TopologyScope.SAME_NODE);
            shape = "8gpu";
        } else {
            final int nodes = random.nextBoolean() ? 2 : 4;
            b.setNodes(nodes).setGpusPerNode(8).setTopology(TopologyScope.SAME_LEAF)
                    .setTopologyMode(TopologyMode.PREFERRED)
                    .setNetwork(random.nextBoolean() ? NetworkRequirement.INFINIBAND : NetworkRequirement.ANY);
            shape = "gang" + nodes + "x8";
        }
        final String jobId = String.format("gen-%s-%06d", runTag, n);
        b.setName(tenant + "-" + shape + "-" + n);
        return new TimedJob(Math.round(clockMillis), jobId, b.build());
    }

    private static long roundUpToQuarterHour(final long millis) {
        final long quarter = 900_000L;
        return (millis + quarter - 1) / quarter * quarter;
    }
}
