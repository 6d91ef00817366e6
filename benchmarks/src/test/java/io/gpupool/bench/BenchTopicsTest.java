package io.gpupool.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class BenchTopicsTest {

    @Test
    void runsStartedTogetherGetPrefixesOfTheirOwn() {
        final Set<String> prefixes = new HashSet<>();
        for (int i = 0; i < 1_000; i++) {
            prefixes.add(BenchTopics.runPrefix("restart"));
        }
        assertThat(prefixes).hasSize(1_000).allMatch(p -> p.startsWith("restart-"));
    }

    @Test
    void aRunDeletesItsOwnTopicsAndNotThoseOfARunWhosePrefixStartsLikeIt() {
        assertThat(BenchTopics.isUnder("restart-5-7-1", "restart-5-7-1.journal")).isTrue();
        assertThat(BenchTopics.isUnder("restart-5-7-1", "restart-5-7-1-app-placer-jobs-changelog")).isTrue();
        assertThat(BenchTopics.isUnder("restart-5-7-1", "restart-5-7-10.journal")).isFalse();
        assertThat(BenchTopics.isUnder("restart-5-7-1", "restart-5-7-10-app-placer-jobs-changelog")).isFalse();
        assertThat(BenchTopics.isUnder("restart-5-7-1", "gpupool.journal")).isFalse();
    }
}
