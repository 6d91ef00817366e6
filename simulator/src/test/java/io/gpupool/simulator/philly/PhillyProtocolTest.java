package io.gpupool.simulator.philly;

import io.gpupool.simulator.TestTraces;
import io.gpupool.simulator.pool.EnginePool;
import io.gpupool.simulator.pool.PoolFactory;
import io.gpupool.simulator.pool.PoolOutcome;
import io.gpupool.simulator.pool.SimJob;
import io.gpupool.simulator.pool.SimNode;
import io.gpupool.simulator.pool.SimulatedPool;
import io.gpupool.simulator.progress.ProgressBar;
import io.gpupool.simulator.trace.PhillyJob;
import io.gpupool.simulator.trace.PhillyTraceReader;
import org.junit.jupiter.api.Test;

import java.io.OutputStream;
import java.io.PrintStream;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/** Protocol invariants of Philly runs over a real trace slice, with the real engine. */
class PhillyProtocolTest {

    private static final List<PhillyJob> JOBS = PhillyTraceReader.read(TestTraces.path("philly_slice.csv"),
            Instant.parse("2017-10-01T00:00:00Z"), Instant.parse("2017-12-01T00:00:00Z"));
    /** Small VCs, so that jobs really queue: 2869ce's 32-GPU jobs take all of it. */
    private static final Map<String, Integer> SMALL = Map.of("2869ce", 4, "e13805", 4, "ed69ec", 1);
    private static final PrintStream QUIET = new PrintStream(OutputStream.nullOutputStream());

    private static List<PhillyResult> run(final PoolFactory engines, final List<PhillyPolicy> policies) {
        final Map<String, VirtualClusterSizes.Sizing> sizes = VirtualClusterSizes.choose(JOBS, SMALL, "test");
        return PhillyProtocol.run(engines, policies, JOBS, sizes, 2, Map.of(), new ProgressBar(QUIET, "test", 1));
    }

    @Test
    void jobsStartAfterSubmissionAndEndAfterTheirDuration() {
        final Map<String, PhillyJob> byId = JOBS.stream().collect(Collectors.toMap(PhillyJob::id, Function.identity()));
        for (PhillyResult result : run(EnginePool::new, PhillyPolicy.KNOWN)) {
            assertThat(result.jobs()).hasSize(JOBS.size());
            assertThat(result.rejectedCount()).isZero();
            for (JobResult job : result.jobs()) {
                assertThat(job.start()).isGreaterThanOrEqualTo(job.submit());
                assertThat(job.end()).isEqualTo(job.start() + byId.get(job.jobId()).durationSeconds());
            }
            for (double share : result.utilisation(JOBS.get(0).submitSecond(), JOBS.get(JOBS.size() - 1).submitSecond(), 600)) {
                assertThat(share).isBetween(0.0, 1.0);
            }
        }
    }

    @Test
    void fifoStartsJobsOfAVirtualClusterInSubmissionOrder() {
        final PhillyResult fifo = run(EnginePool::new, List.of(PhillyPolicy.FIFO)).get(0);
        assertThat(fifo.averageQueueingSeconds()).as("the small VCs make jobs wait").isPositive();
        final Map<String, List<JobResult>> byVc = fifo.jobs().stream().collect(Collectors.groupingBy(JobResult::virtualCluster));
        for (List<JobResult> jobs : byVc.values()) {
            for (int i = 1; i < jobs.size(); i++) {
                assertThat(jobs.get(i).start()).as("FIFO: %s not before %s", jobs.get(i).jobId(), jobs.get(i - 1).jobId())
                        .isGreaterThanOrEqualTo(jobs.get(i - 1).start());
            }
        }
    }

    @Test
    void onlyTheOracleBaselineSeesDurationsAndRunsAreDeterministic() {
        final List<SimJob> submitted = Collections.synchronizedList(new ArrayList<>());
        final PoolFactory spying = settings -> {
            final SimulatedPool real = new EnginePool(settings);
            return new SimulatedPool() {
                @Override public void addNode(final SimNode node, final long now) { real.addNode(node, now); }
                @Override public PoolOutcome submit(final SimJob job, final long now) { submitted.add(job); return real.submit(job, now); }
                @Override public PoolOutcome complete(final String jobId, final long now) { return real.complete(jobId, now); }
                @Override public PoolOutcome tick(final long now) { return real.tick(now); }
                @Override public double fragmentationRate() { return real.fragmentationRate(); }
            };
        };
        final List<PhillyResult> first = run(spying, List.of(PhillyPolicy.FULL, PhillyPolicy.FIFO));
        assertThat(submitted).hasSize(2 * JOBS.size()).allSatisfy(job -> assertThat(job.runtimeEstimateSeconds()).isEmpty());
        final List<PhillyResult> again = run(EnginePool::new, List.of(PhillyPolicy.FULL, PhillyPolicy.FIFO));
        for (int p = 0; p < 2; p++) {
            assertThat(again.get(p).jobs()).isEqualTo(first.get(p).jobs());
        }
    }
}
