package io.gpupool.scheduler.stream;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpupool.avro.JournalEntry;
import io.gpupool.avro.PlacementDecision;
import io.gpupool.scheduler.core.EngineConfig;
import java.util.List;
import java.util.function.Function;
import org.apache.kafka.streams.test.TestRecord;

/** The audit's guarantee in a topology test: the recorded journal, replayed offline, gives the recorded decisions byte for byte. */
final class OfflineReplay {
    private OfflineReplay() {
    }

    static void decidesAsRecorded(final List<TestRecord<String, JournalEntry>> journal, final List<PlacementDecision> recorded,
                                  final Function<String, EngineConfig> configs) throws Exception {
        final JournalReplay replay = new JournalReplay(configs);
        for (int offset = 0; offset < journal.size(); offset++) {
            replay.apply(journal.get(offset).value(), 0, offset); // the driver has one partition per topic
        }
        assertThat(replay.decisions()).hasSameSizeAs(recorded);
        for (int i = 0; i < recorded.size(); i++) {
            assertThat(RestoreAndReplayTest.bytes(replay.decisions().get(i))).as("decision " + i)
                    .isEqualTo(RestoreAndReplayTest.bytes(recorded.get(i)));
        }
    }
}
