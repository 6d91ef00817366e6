package io.gpupool.simulator.pool;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.OptionalLong;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class NodeLedgerTest {

    private static SimJob job(final String id, final int gpus, final int milli, final Set<String> models) {
        return new SimJob(id, "", "t", 1000, 1024, 1, gpus, milli, models, 0, OptionalLong.empty());
    }

    @Test
    void booksAndReleasesAndMeasuresStrandedCapacity() {
        final NodeLedger ledger = new NodeLedger();
        ledger.addNode(new SimNode("n1", 8000, 8192, 2, "T4"));
        ledger.addNode(new SimNode("n2", 8000, 8192, 2, "T4"));
        ledger.place(job("a", 1, 500, Set.of()), new Placement("a", List.of("n1"), List.of(List.of(0))));
        assertThat(ledger.gpuAllocatedMilli()).isEqualTo(500);
        assertThat(ledger.fragmentedFreeGpuMilli()).isEqualTo(1500);
        ledger.place(job("b", 2, 1000, Set.of("T4")), new Placement("b", List.of("n2"), List.of(List.of(0, 1))));
        assertThat(ledger.fragmentedFreeGpuMilli()).isEqualTo(1500); // n2 is full, not fragmented
        ledger.release("a");
        assertThat(ledger.gpuAllocatedMilli()).isEqualTo(2000);
        assertThat(ledger.fragmentedFreeGpuMilli()).isZero();
        assertThat(ledger.gpuCapacityMilli()).isEqualTo(4000);
    }

    @Test
    void catchesAnEngineThatBreaksCapacityOrModelConstraints() {
        final NodeLedger ledger = new NodeLedger();
        ledger.addNode(new SimNode("n1", 8000, 8192, 1, "T4"));
        ledger.place(job("a", 1, 700, Set.of()), new Placement("a", List.of("n1"), List.of(List.of(0))));
        assertThatThrownBy(() -> ledger.place(job("b", 1, 400, Set.of()), new Placement("b", List.of("n1"), List.of(List.of(0)))))
                .hasMessageContaining("over-allocated GPU 0 of n1");
        assertThatThrownBy(() -> ledger.place(job("c", 1, 100, Set.of("V100M16")), new Placement("c", List.of("n1"), List.of(List.of(0)))))
                .hasMessageContaining("allowed only");
        assertThatThrownBy(() -> ledger.place(job("d", 1, 100, Set.of()), new Placement("d", List.of("nope"), List.of(List.of(0)))))
                .hasMessageContaining("unknown node");
        assertThatThrownBy(() -> ledger.place(job("a", 1, 100, Set.of()), new Placement("a", List.of("n1"), List.of(List.of(0)))))
                .hasMessageContaining("twice");
    }

    @Test
    void catchesTwoSharesThatOverfillOneGpuOfANodeWithRoomOnAnother() {
        final NodeLedger ledger = new NodeLedger();
        ledger.addNode(new SimNode("n1", 8000, 8192, 2, "T4"));
        ledger.place(job("a", 1, 700, Set.of()), new Placement("a", List.of("n1"), List.of(List.of(0))));
        // The node has 1300 milli free in all, but not on GPU 0.
        assertThatThrownBy(() -> ledger.place(job("b", 1, 400, Set.of()), new Placement("b", List.of("n1"), List.of(List.of(0)))))
                .hasMessageContaining("over-allocated GPU 0 of n1");
        ledger.addNode(new SimNode("small-cpu", 1500, 8192, 2, "T4"));
        ledger.place(job("d", 1, 100, Set.of()), new Placement("d", List.of("small-cpu"), List.of(List.of(0))));
        assertThatThrownBy(() -> ledger.place(job("e", 1, 100, Set.of()), new Placement("e", List.of("small-cpu"), List.of(List.of(1)))))
                .hasMessageContaining("over-allocated node small-cpu").hasMessageContaining("cpu 2000/1500");
        final NodeLedger other = new NodeLedger();
        other.addNode(new SimNode("n1", 8000, 8192, 2, "T4"));
        assertThatThrownBy(() -> other.place(job("c", 2, 1000, Set.of()), new Placement("c", List.of("n1"), List.of(List.of(0)))))
                .hasMessageContaining("asked for 2");
    }
}
