package io.gpupool.scheduler.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Evidence reaches snapshots and explain text: its order must not depend on how a caller built it. */
class ReasonEvidenceOrderTest {

    @Test
    void evidenceIsSortedBySubjectWhateverOrderItWasGivenIn() {
        final Map<String, String> oneWay = new LinkedHashMap<>();
        oneWay.put("node", "n1");
        oneWay.put("free", "3");
        oneWay.put("leaf", "l2");
        final Map<String, String> otherWay = new LinkedHashMap<>();
        otherWay.put("leaf", "l2");
        otherWay.put("node", "n1");
        otherWay.put("free", "3");
        final Reason a = new Reason(ReasonCode.values()[0], "m", oneWay);
        final Reason b = new Reason(ReasonCode.values()[0], "m", otherWay);
        assertThat(List.copyOf(a.evidence().keySet())).containsExactly("free", "leaf", "node");
        assertThat(List.copyOf(b.evidence().keySet())).containsExactly("free", "leaf", "node");
        assertThat(a.toString()).isEqualTo(b.toString());
    }
}
