package io.gpupool.scheduler.query;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Optional;
import org.apache.kafka.streams.KafkaStreams;
import org.junit.jupiter.api.Test;

/** /health is not RUNNING-means-healthy: threads that keep failing, or a stopped client, are not healthy. */
class HealthTest {

    @Test
    void aRunningClientWhoseThreadsKeepFailingIsNotHealthy() {
        final Health h = Health.of(KafkaStreams.State.RUNNING, Optional.of("stream threads replaced 2 times within 600 s"));
        assertThat(h.status()).isEqualTo(503);
        assertThat(h.body()).containsEntry("state", "RUNNING").containsEntry("healthy", false)
                .containsEntry("reason", "stream threads replaced 2 times within 600 s");
    }

    @Test
    void aStoppedClientIsNotHealthyAndARunningOneIs() {
        assertThat(Health.of(KafkaStreams.State.ERROR, Optional.empty()).status()).isEqualTo(503);
        assertThat(Health.of(KafkaStreams.State.NOT_RUNNING, Optional.empty()).body()).containsEntry("healthy", false);
        final Health ok = Health.of(KafkaStreams.State.RUNNING, Optional.empty());
        assertThat(ok.status()).isEqualTo(200);
        assertThat(ok.body()).containsEntry("healthy", true).doesNotContainKey("reason");
        assertThat(Health.of(KafkaStreams.State.REBALANCING, Optional.empty()).healthy()).isTrue();
    }
}
