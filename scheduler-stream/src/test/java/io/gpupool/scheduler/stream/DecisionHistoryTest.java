package io.gpupool.scheduler.stream;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpupool.avro.DecisionOutcome;
import io.gpupool.avro.JournalPosition;
import io.gpupool.avro.PlacementDecision;
import io.gpupool.registry.InMemorySchemaRegistry;
import io.gpupool.serde.SpecificAvroSerializer;
import io.gpupool.serde.WireFormat;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class DecisionHistoryTest {

    private static PlacementDecision d(final int i) {
        return PlacementDecision.newBuilder().setDecisionId("p-" + i).setJobId("j").setPool("p")
                .setOutcome(i % 2 == 0 ? DecisionOutcome.QUEUED : DecisionOutcome.PLACED)
                .setCause(new JournalPosition(0, (long) i, Instant.ofEpochMilli(i))).build();
    }

    @Test
    void keepsTheLastSixteenOldestFirst() {
        byte[] v = null;
        for (int i = 0; i < 40; i++) {
            v = DecisionHistory.append(v, d(i));
            final List<PlacementDecision> h = DecisionHistory.read(v);
            assertThat(h).hasSize(Math.min(i + 1, DecisionHistory.KEPT));
            assertThat(h.get(h.size() - 1).getDecisionId()).isEqualTo("p-" + i);
            assertThat(h.get(0).getDecisionId()).isEqualTo("p-" + Math.max(0, i + 1 - DecisionHistory.KEPT));
        }
    }

    /** The decisions topic's value, whose Avro binary the placer appends as it is (written once, not twice). */
    @Test
    void aDecisionAsTheTopicHoldsItIsAppendedAsTheDecisionItself() {
        final SpecificAvroSerializer<PlacementDecision> topic = new SpecificAvroSerializer<>(new InMemorySchemaRegistry(),
                true, false);
        byte[] fromRecords = null;
        byte[] fromTopic = null;
        for (int i = 0; i < 20; i++) {
            fromRecords = DecisionHistory.append(fromRecords, d(i));
            fromTopic = DecisionHistory.appendEncoded(fromTopic, topic.serialize("gpupool.decisions", d(i)),
                    WireFormat.HEADER_SIZE);
            assertThat(fromTopic).isEqualTo(fromRecords);
        }
        assertThat(DecisionHistory.read(fromTopic)).hasSize(DecisionHistory.KEPT).last()
                .isEqualTo(d(19));
    }
}
