package io.gpupool.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class BenchCommandTest {

    @Test
    void engineBenchPrintsNameValueFigures() {
        final CliRun r = CliRun.of("bench", "engine", "--nodes", "128", "--leaves", "8", "--single-ops", "2000",
                "--gang-ops", "200", "--warmup-ops", "100");
        assertEquals(0, r.exitCode(), r.err());
        for (final String name : new String[] {"single_gpu_placements_per_s=", "gang_8x8_placements_per_s=", "heap_mb="}) {
            assertTrue(r.out().lines().anyMatch(l -> l.startsWith(name) && l.substring(name.length()).matches("\\d+")),
                    name + " in " + r.out());
        }
    }

    @Test
    void wrongPolicyTellsTheChoices() {
        final CliRun r = CliRun.of("bench", "engine", "--policy", "worst-fit");
        assertEquals(64, r.exitCode());
        assertTrue(r.err().contains("use one of first-fit, best-fit, fgd"), r.err());
    }

    @Test
    void aCostBacklogShorterThanTheMeasuredJobsIsAUsageError() {
        // refused before any connection: the addresses are never dialled
        final CliRun r = CliRun.of("bench", "cost", "--bootstrap-server", "localhost:1", "--registry-url",
                "http://localhost:1", "--jobs", "100", "--backlog", "50");
        assertEquals(64, r.exitCode(), r.err());
        assertTrue(r.err().contains("a backlog must hold at least the measured jobs (100)"), r.err());
    }

    @Test
    void aPipelineSnapshotIntervalUnderOneIsAUsageError() {
        // refused before any connection: the addresses are never dialled
        final CliRun r = CliRun.of("bench", "pipeline", "--bootstrap-server", "localhost:1", "--registry-url",
                "http://localhost:1", "--snapshot-every", "0");
        assertEquals(64, r.exitCode(), r.err());
        assertTrue(r.err().contains("--snapshot-every must be at least 1 journal entry between two snapshots, not 0"), r.err());
    }

    @Test
    void benchWithoutNameSaysWhatToType() {
        final CliRun r = CliRun.of("bench");
        assertEquals(64, r.exitCode());
        assertTrue(r.err().contains("gpupool bench engine"), r.err());
    }
}
