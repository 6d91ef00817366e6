package io.gpupool.cli.workload;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The generator's mix: seeded, every kind of job, every tenant and class, at the asked rate. */
class SyntheticJobsTest {

    private static List<TimedJob> take(final SyntheticJobs g, final int n) {
        final List<TimedJob> jobs = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            jobs.add(g.next());
        }
        return jobs;
    }

    @Test
    void theSameSeedGivesTheSameJobs() {
        assertThat(take(new SyntheticJobs(3, "default", "r", 2), 50)).isEqualTo(take(new SyntheticJobs(3, "default", "r", 2), 50));
        assertThat(take(new SyntheticJobs(3, "default", "r", 2), 50)).isNotEqualTo(take(new SyntheticJobs(4, "default", "r", 2), 50));
    }

    @Test
    void theMixHasEveryKindTenantAndClassAtTheRate() {
        final List<TimedJob> jobs = take(new SyntheticJobs(1, "default", "r", 4), 2_000);
        final Set<String> kinds = new HashSet<>();
        final Set<String> tenants = new HashSet<>();
        final Set<String> classes = new HashSet<>();
        for (final TimedJob j : jobs) {
            final var r = j.request();
            kinds.add(r.getGpuMilli() != null ? "fraction" : r.getNodes() > 1 ? "gang" : r.getGpusPerNode() == 8 ? "node" : "single");
            tenants.add(r.getTenant());
            classes.add(r.getPriorityClass());
            assertThat(r.getSimulatedRuntimeMillis()).isBetween(60_000L, 4 * 3_600_000L);
            if ("best-effort".equals(r.getPriorityClass())) {
                assertThat(r.getPreemptible()).isTrue();
            }
        }
        assertThat(kinds).containsExactlyInAnyOrder("single", "fraction", "node", "gang");
        assertThat(tenants).containsExactlyInAnyOrderElementsOf(SyntheticJobs.TENANTS);
        assertThat(classes).containsExactlyInAnyOrder("production", "batch", "best-effort");
        // 2,000 Poisson arrivals at 4/s span about 500 s.
        assertThat(jobs.get(jobs.size() - 1).arrivalMillis()).isBetween(450_000L, 550_000L);
        assertThat(jobs.stream().map(TimedJob::jobId).distinct().count()).isEqualTo(2_000);
    }
}
