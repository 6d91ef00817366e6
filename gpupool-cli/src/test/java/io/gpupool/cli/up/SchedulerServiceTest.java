package io.gpupool.cli.up;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpupool.scheduler.app.RestoreProgress;
import org.apache.kafka.streams.KafkaStreams;
import org.junit.jupiter.api.Test;

/** What a restart of {@code gpupool up} says while its scheduler is not RUNNING yet. */
class SchedulerServiceTest {

    @Test
    void aRestoringSchedulerSaysHowFarItIsAndHowFast() {
        final long started = 1_000_000_000L;
        final String restoring = SchedulerService.waitingFor(KafkaStreams.State.REBALANCING,
                new RestoreProgress.Reading(1_200, 5_400, 3, started), started + 1_500_000_000L);
        assertThat(restoring).isEqualTo("restoring its state from the changelogs: 1,200 of 5,400 records (800 records/s)");
        final String rebuilding = SchedulerService.waitingFor(KafkaStreams.State.REBALANCING,
                new RestoreProgress.Reading(5_400, 5_400, 0, started), started + 9_000_000_000L);
        assertThat(rebuilding).isEqualTo("state restored (5,400 records); rebuilding each pool's engine from its last "
                + "snapshot and the journal entries since (a few snapshots' worth at most) (REBALANCING)");
        assertThat(SchedulerService.waitingFor(KafkaStreams.State.CREATED, new RestoreProgress.Reading(0, 0, 0, 0), started))
                .isEqualTo("joining its Kafka Streams group and taking its tasks (CREATED)");
    }
}
