package io.gpupool.scheduler.stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.streams.StreamsConfig;
import org.junit.jupiter.api.Test;

/** The instance id a scheduler derives, and the settings static membership puts on top of the profile. */
class MembershipTest {

    @Test
    void theDerivedInstanceIdIsStableForOneStateDirectoryAndDiffersForAnother() {
        final String a = Membership.defaultInstanceId("app", Path.of("/srv/gpupool/state"));
        assertThat(Membership.defaultInstanceId("app", Path.of("/srv/gpupool/../gpupool/state"))).isEqualTo(a);
        assertThat(Membership.defaultInstanceId("app", Path.of("/srv/gpupool/state-2"))).isNotEqualTo(a);
        assertThat(a).startsWith("app-");
    }

    @Test
    void settingsNameTheInstanceOnTheMainConsumerWithItsSession() {
        final Properties p = new Membership("sched-a", Duration.ofSeconds(12), 1).settings("app", Path.of("/x"));
        assertThat(p).containsEntry(StreamsConfig.mainConsumerPrefix(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG), "sched-a")
                .containsEntry(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, 12_000)
                .containsEntry(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, 3_000)
                .containsEntry(StreamsConfig.NUM_STANDBY_REPLICAS_CONFIG, 1);
        assertThat(Membership.defaults().settings("app", Path.of("/x")))
                .as("the profile's standby replicas stay").doesNotContainKey(StreamsConfig.NUM_STANDBY_REPLICAS_CONFIG);
    }

    @Test
    void aSessionShorterThanTheBrokersMinimumIsRefused() {
        assertThatThrownBy(() -> new Membership("", Duration.ofSeconds(2), 0)).hasMessageContaining("at least 6 s");
    }
}
