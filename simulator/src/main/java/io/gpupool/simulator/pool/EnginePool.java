package io.gpupool.simulator.pool;

import io.gpupool.scheduler.core.Decision;
import io.gpupool.scheduler.core.DecisionKind;
import io.gpupool.scheduler.core.EngineConfig;
import io.gpupool.scheduler.core.EngineInput;
import io.gpupool.scheduler.core.EngineOutput;
import io.gpupool.scheduler.core.JobSpec;
import io.gpupool.scheduler.core.NodeSpec;
import io.gpupool.scheduler.core.PlacementPart;
import io.gpupool.scheduler.core.PoolEngine;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The simulator's pool backed by the real placement engine ({@link PoolEngine}, scheduler-stream
 * core). It only translates: simulated seconds become stream-time milliseconds, requests become
 * {@link JobSpec}s, decisions become placements and rejections. Every choice of node and of
 * queue order is the engine's.
 */
public final class EnginePool implements SimulatedPool {

    /** Placement policies of the FGD protocol, as the engine names them. */
    public static final List<String> SCORING_POLICIES = List.of("first-fit", "best-fit", "tight-fit", "fgd", "random");
    /** Queue policies of the Philly protocol. */
    public static final List<String> QUEUE_POLICIES = List.of("fifo", "sjf", "full"); // backfill = full without VC quotas, per VC

    private final PoolEngine engine;
    private final boolean placeNowOrReject;

    public EnginePool(final PoolSettings settings) {
        this.engine = new PoolEngine(config(settings));
        this.placeNowOrReject = settings.placeNowOrReject();
    }

    /**
     * The engine configuration for a policy name. Telemetry staleness is off: simulated nodes send
     * no heartbeats, and capacity must not vanish for that; no submit is shed (no max-waiting-jobs). Queue policies keep preemption and
     * consolidation off (one priority class, nothing to preempt for).
     */
    static EngineConfig config(final PoolSettings settings) {
        final Map<String, String> s = new TreeMap<>();
        s.put("pool", settings.poolId());
        s.put("stale-telemetry-timeout-ms", "0");
        s.put("preemption", "false");
        s.put("consolidation-max-evictions", "0");
        // a trace's burst may queue more jobs than a live pool lets wait: the study is of placement, not shedding
        s.put("max-waiting-jobs", "0");
        s.put("seed", Long.toString(settings.seed()));
        final String policy = settings.policy().trim().toLowerCase(Locale.ROOT);
        switch (policy) {
            case "first-fit", "random" -> {
                s.put("policy", policy);
                s.put("backfill", "false");
            }
            case "best-fit" -> {
                // FGD's BestFit baseline: 0.5 x CPU left + 0.5 x GPU left (of the largest node), an integer
                // score 0..100, equal scores broken at random as kube-scheduler does
                s.put("policy", "best-fit");
                s.put("best-fit-cpu-weight", "0.5");
                s.put("random-ties", "true");
                s.put("backfill", "false");
            }
            case "tight-fit" -> {
                // the engine's own best-fit: fewest GPUs left on the node, pool order on ties
                s.put("policy", "best-fit");
                s.put("backfill", "false");
            }
            case "fgd" -> {
                // FGD's plugin score (int(100 x sigmoid(fragmentation decrease))); equal scores go to the node
                // left with fewer free GPUs, then at random
                s.put("policy", "fgd");
                s.put("fgd-integer-score", "true");
                s.put("random-ties", "true");
                s.put("backfill", "false");
            }
            case "fifo", "sjf" -> {
                // Helios's baselines: strict queue order (submission, or the priority SJF is given), no backfill.
                s.put("policy", "best-fit");
                s.put("backfill", "false");
            }
            case "full" -> {
                s.put("policy", "best-fit");
                s.put("backfill", "true");
                settings.tenantGpuQuota().forEach((tenant, gpus) -> s.put("tenant." + tenant + ".guaranteed-gpus", Integer.toString(gpus)));
            }
            default -> throw new IllegalArgumentException("the engine has no policy '" + settings.policy() + "'; placement policies: "
                    + SCORING_POLICIES + ", queue policies: " + QUEUE_POLICIES);
        }
        s.putAll(settings.engineOverrides());
        return EngineConfig.fromSettings(s);
    }

    @Override
    public void addNode(final SimNode node, final long nowSecond) {
        final EngineOutput out = engine.apply(new EngineInput.NodeUpsert(nowSecond * 1000,
                NodeSpec.simple(node.id(), node.cpuMilli(), node.memoryMib(), node.gpuCount(),
                        node.gpuModel().isEmpty() ? "none" : node.gpuModel())));
        if (out.decisions().stream().anyMatch(d -> d.kind() == DecisionKind.REJECTED)) {
            throw new IllegalStateException("engine refused node " + node.id() + ": " + out.decisions());
        }
    }

    @Override
    public PoolOutcome submit(final SimJob job, final long nowSecond) {
        final JobSpec spec = JobSpec.builder(job.id())
                .name(job.name())
                .tenant(job.tenant())
                .priority(job.priority())
                .gang(job.nodeCount(), job.gpusPerNode())
                .gpuMilli(job.gpusPerNode() == 0 ? JobSpec.WHOLE_GPU_MILLI : job.gpuMilli())
                .cpuMilli(job.cpuMilli())
                .memoryMib(job.memoryMib())
                .models(List.copyOf(new TreeSet<>(job.allowedGpuModels())))
                .runtimeEstimateMs(job.runtimeEstimateSeconds().isPresent() ? job.runtimeEstimateSeconds().getAsLong() * 1000 : 0)
                .placeNowOrReject(placeNowOrReject)
                .build();
        return outcome(engine.apply(new EngineInput.SubmitJob(nowSecond * 1000, spec)));
    }

    @Override
    public PoolOutcome complete(final String jobId, final long nowSecond) {
        // the simulated sink reports on the placement the job holds now (an evicted job's end is dropped by the driver)
        return outcome(engine.apply(new EngineInput.JobReport(nowSecond * 1000, jobId, EngineInput.JobEventKind.COMPLETED,
                engine.placementOf(jobId), "", "")));
    }

    @Override
    public double fragmentationRate() {
        return engine.fragmentation();
    }

    @Override
    public PoolOutcome tick(final long nowSecond) {
        return outcome(engine.apply(new EngineInput.ClockTick(nowSecond * 1000)));
    }

    private static PoolOutcome outcome(final EngineOutput out) {
        final List<Placement> placed = new ArrayList<>();
        final List<String> rejected = new ArrayList<>();
        final List<String> evicted = new ArrayList<>();
        for (Decision d : out.decisions()) {
            switch (d.kind()) {
                case PLACED -> placed.add(new Placement(d.jobId(), d.placement().stream().map(PlacementPart::nodeId).toList(),
                        d.placement().stream().map(PlacementPart::gpus).toList()));
                case REJECTED -> rejected.add(d.jobId());
                case EVICTED -> evicted.add(d.jobId());
                default -> {
                    // QUEUED, RELEASED, CANCELLED change nothing the simulator books.
                }
            }
        }
        return new PoolOutcome(placed, rejected, evicted);
    }
}
