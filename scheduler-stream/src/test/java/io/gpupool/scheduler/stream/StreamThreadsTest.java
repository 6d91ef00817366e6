package io.gpupool.scheduler.stream;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import java.util.Properties;
import org.apache.kafka.streams.StreamsConfig;
import org.junit.jupiter.api.Test;

/**
 * The local profile runs one stream thread where the machine has two cores or fewer (the broker of the
 * one-machine stack needs the other), two where it has more; a caller's setting still wins.
 */
class StreamThreadsTest {

    @Test
    void oneThreadOnTwoCoresOrFewerAndTwoAbove() {
        assertThat(StreamsSettings.streamThreads(1)).isEqualTo(1);
        assertThat(StreamsSettings.streamThreads(2)).isEqualTo(1);
        assertThat(StreamsSettings.streamThreads(3)).isEqualTo(2);
        assertThat(StreamsSettings.streamThreads(64)).isEqualTo(2);
    }

    @Test
    void theLocalProfileFollowsThisMachineAndACallerOverrides() {
        final Properties local = StreamsSettings.local("app", "b:1", "/tmp/s");
        assertThat(local.get(StreamsConfig.NUM_STREAM_THREADS_CONFIG))
                .isEqualTo(StreamsSettings.streamThreadsHere());
        final Properties chosen = StreamsSettings.merge(local, Map.of(StreamsConfig.NUM_STREAM_THREADS_CONFIG, "3"));
        assertThat(new StreamsConfig(chosen).getInt(StreamsConfig.NUM_STREAM_THREADS_CONFIG)).isEqualTo(3);
    }
}
