package io.gpupool.scheduler.stream;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpupool.avro.DecisionOutcome;
import io.gpupool.avro.JobCommand;
import io.gpupool.avro.JournalEntry;
import io.gpupool.avro.PlacementDecision;
import io.gpupool.scheduler.core.EngineConfig;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Tenants' job topics ({@code gpupool.jobs.<tenant>}) under the TopologyTestDriver: the topic a job was written
 * to says whose it is. A tenant's submit naming another tenant is rejected without taking the job id, a
 * tenant's cancel of another tenant's job is refused (dead-lettered) and the job runs on, the shared topic
 * still takes any tenant's jobs, and an offline replay of the journal decides the same.
 */
class TenantTopicsTopologyTest {
    private Harness h;
    private TestInputTopic<String, JobCommand> teamA;
    private TestInputTopic<String, JobCommand> teamB;

    @BeforeEach
    void start() throws Exception {
        h = new Harness(1000, 10_000, Map.of(), JobSources.withTenantTopics(1));
        for (int n = 0; n < 4; n++) {
            h.inventory.pipeInput("n" + n, Fixtures.node("p1", "n" + n, "leaf-a", 8), 1_000);
        }
        teamA = h.tenantJobs("team-a");
        teamB = h.tenantJobs("team-b");
    }

    @AfterEach
    void stop() throws Exception {
        h.close();
    }

    @Test
    void aTenantsTopicTakesItsOwnJobsAndTheJournalSaysWhoseTopicItWas() {
        teamA.pipeInput("a-1", Fixtures.submit("a-1", Fixtures.request("p1", 1, 8).setTenant("team-a").build()), 2_000);

        assertThat(outcomes()).containsExactly("a-1:PLACED:PLACED");
        final JournalEntry submit = submits().get(0);
        assertThat(submit.getSource().getTopic()).isEqualTo("gpupool.jobs.team-a");
        assertThat(submit.getSource().getTenant()).isEqualTo("team-a");
    }

    @Test
    void aSubmitNamingAnotherTenantIsRejectedAndLeavesTheIdToItsOwner() {
        teamA.pipeInput("b-1", Fixtures.submit("b-1", Fixtures.request("p1", 1, 8).setTenant("team-b").build()), 2_000);
        teamB.pipeInput("b-1", Fixtures.submit("b-1", "b-own", Fixtures.request("p1", 1, 8).setTenant("team-b").build()), 2_100);

        final List<PlacementDecision> d = h.decisions();
        assertThat(d.stream().map(x -> x.getJobId() + ":" + x.getOutcome() + ":" + x.getReasonCode()))
                .containsExactly("b-1:REJECTED:WRONG_TENANT", "b-1:PLACED:PLACED");
        assertThat(d.get(0).getMessage()).contains("gpupool.jobs.team-a").contains("names tenant 'team-b'")
                .contains("tenant=team-a");
    }

    @Test
    void aTenantCannotCancelAnotherTenantsJob() {
        teamB.pipeInput("b-2", Fixtures.submit("b-2", Fixtures.request("p1", 1, 8).setTenant("team-b").build()), 2_000);
        teamA.pipeInput("b-2", Fixtures.cancel("b-2"), 2_100);

        assertThat(outcomes()).containsExactly("b-2:PLACED:PLACED");
        final var dead = h.dlq.readRecordsToList();
        assertThat(dead).hasSize(1);
        // the placer dead-letters the journal entry; its message names the record the tenant wrote
        assertThat(DeadLetters.header(dead.get(0).headers(), DeadLetters.TOPIC)).isEqualTo("gpupool.journal");
        assertThat(DeadLetters.header(dead.get(0).headers(), DeadLetters.ERROR_CLASS)).isEqualTo("RefusedJobCommand");
        assertThat(DeadLetters.header(dead.get(0).headers(), DeadLetters.ERROR_MESSAGE))
                .contains("job b-2 is tenant team-b's").contains("tenant team-a's job topic").contains("(gpupool.jobs.team-a 0@");
        final boolean live = h.engines.all().get(0).read(e -> e.isLive("b-2"));
        assertThat(live).isTrue();

        teamB.pipeInput("b-2", Fixtures.cancel("b-2"), 2_200); // its owner can
        assertThat(outcomes()).containsExactly("b-2:CANCELLED:CANCELLED_BY_USER");
    }

    @Test
    void theSharedTopicTakesAnyTenantsJobsAsBefore() {
        h.jobs.pipeInput("c-1", Fixtures.submit("c-1", Fixtures.request("p1", 1, 8).setTenant("team-c").build()), 2_000);
        teamA.pipeInput("a-2", Fixtures.submit("a-2", Fixtures.request("p1", 1, 8).setTenant("team-a").build()), 2_100);
        h.jobs.pipeInput("a-2", Fixtures.cancel("a-2"), 2_200); // whoever may write the shared topic acts for any tenant

        assertThat(outcomes()).containsExactly("c-1:PLACED:PLACED", "a-2:PLACED:PLACED", "a-2:CANCELLED:CANCELLED_BY_USER");
        assertThat(submits().get(0).getSource().getTenant()).isNull();
    }

    @Test
    void anOfflineReplayOfTheJournalDecidesTheSame() throws Exception {
        teamA.pipeInput("x-1", Fixtures.submit("x-1", Fixtures.request("p1", 1, 8).setTenant("team-b").build()), 2_000);
        teamB.pipeInput("x-1", Fixtures.submit("x-1", "x-own", Fixtures.request("p1", 1, 8).setTenant("team-b").build()), 2_100);
        teamA.pipeInput("x-1", Fixtures.cancel("x-1"), 2_200);
        teamA.pipeInput("x-2", Fixtures.submit("x-2", Fixtures.request("p1", 2, 8).setTenant("team-a").build()), 2_300);
        final List<TestRecord<String, JournalEntry>> journal = h.journal();
        final List<PlacementDecision> recorded = h.decisions();
        assertThat(recorded.stream().map(PlacementDecision::getOutcome))
                .contains(DecisionOutcome.REJECTED, DecisionOutcome.PLACED);

        OfflineReplay.decidesAsRecorded(journal, recorded, p -> EngineConfig.fromSettings(Map.of("pool", p)));
    }

    private List<String> outcomes() {
        return h.decisions().stream().map(d -> d.getJobId() + ":" + d.getOutcome() + ":" + d.getReasonCode())
                .collect(Collectors.toList());
    }

    private List<JournalEntry> submits() {
        return h.journal().stream().map(TestRecord::value).filter(e -> e.getPayload() instanceof JobCommand)
                .collect(Collectors.toList());
    }
}
