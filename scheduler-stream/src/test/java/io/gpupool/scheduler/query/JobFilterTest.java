package io.gpupool.scheduler.query;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gpupool.scheduler.core.JobState;
import io.gpupool.scheduler.core.JobView;
import io.gpupool.scheduler.core.PlacementPart;
import io.gpupool.scheduler.core.PriorityClass;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class JobFilterTest {

    @Test
    void statesAreGroupsAndTheOtherFiltersNarrowThem() {
        final JobFilter f = JobFilter.of(Map.of("state", "running, Finished", "tenant", "team", "node", "n1"));
        assertThat(f.states()).containsExactly(JobFilter.Group.RUNNING, JobFilter.Group.FINISHED);
        assertThat(f.wants(job("a", "team", JobState.RUNNING, "n1"))).isTrue();
        assertThat(f.wants(job("b", "team", JobState.PLACED, "n1"))).isTrue();
        assertThat(f.wants(job("c", "team", JobState.RUNNING, "n2"))).isFalse();
        assertThat(f.wants(job("d", "other", JobState.RUNNING, "n1"))).isFalse();
        assertThat(f.wants(job("e", "team", JobState.QUEUED, null))).isFalse();
        assertThat(JobFilter.of(Map.of("state", "all")).states()).containsExactlyInAnyOrder(JobFilter.Group.values());
        assertThat(JobFilter.of(Map.of("state", "queued", "pool", "p")).wantsPool("q")).isFalse();
    }

    @Test
    void itTravelsToTheOtherInstancesAsTheSameQuery() {
        final JobFilter f = JobFilter.of(Map.of("state", "queued,running", "pool", "a b", "tenant", "t"));
        assertThat(f.toQuery()).isEqualTo("state=queued,running&pool=a+b&tenant=t");
        final JobFilter back = JobFilter.of(Map.of("state", "queued,running", "pool", "a b", "tenant", "t"));
        assertThat(back).isEqualTo(f);
    }

    @Test
    void aMissingOrUnknownStateIsRefusedWithTheChoices() {
        assertThatThrownBy(() -> JobFilter.of(Map.of())).hasMessageContaining("state=queued|running|finished|all");
        assertThatThrownBy(() -> JobFilter.of(Map.of("state", "sleeping")))
                .hasMessageContaining("unknown state 'sleeping'").hasMessageContaining("queued, running, finished or all");
    }

    private static JobView job(final String id, final String tenant, final JobState state, final String node) {
        final List<PlacementPart> placement = node == null ? List.of()
                : List.of(new PlacementPart(node, List.of(0), 1000, 0, 0, 0));
        return new JobView(id, tenant, PriorityClass.BATCH, 0, state, placement, 1L, 0L, 0, "", null, null, 0L, "", 0, 0,
                "", 0L);
    }
}
