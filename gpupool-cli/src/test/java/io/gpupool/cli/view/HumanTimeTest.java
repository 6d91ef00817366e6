package io.gpupool.cli.view;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.time.ZoneId;
import org.junit.jupiter.api.Test;

class HumanTimeTest {
    private static final long NOW = Instant.parse("2026-12-02T01:00:00Z").toEpochMilli();
    private final HumanTime utc = new HumanTime(NOW, ZoneId.of("UTC"));

    @Test
    void durationsCarryTheirUnits() {
        assertThat(HumanTime.duration(0)).isEqualTo("0ms");
        assertThat(HumanTime.duration(850)).isEqualTo("850ms");
        assertThat(HumanTime.duration(21_861)).isEqualTo("21.9s");
        assertThat(HumanTime.duration(30_000)).isEqualTo("30s");
        assertThat(HumanTime.duration(312_000)).isEqualTo("5m 12s");
        assertThat(HumanTime.duration(300_000)).isEqualTo("5m");
        assertThat(HumanTime.duration(3 * 3_600_000L + 5 * 60_000)).isEqualTo("3h 5m");
        assertThat(HumanTime.duration(2 * 86_400_000L + 4 * 3_600_000L + 59_000)).isEqualTo("2d 4h");
        assertThat(HumanTime.duration(-1_500)).isEqualTo("-1.5s");
    }

    @Test
    void momentsAreLocalIsoTimeWithHowFarFromNow() {
        assertThat(utc.at(NOW + 12 * 60_000)).isEqualTo("2026-12-02T01:12:00 (in 12m)");
        assertThat(utc.at(NOW - 3 * 3_600_000L - 59_000)).isEqualTo("2026-12-01T21:59:01 (3h ago)");
        assertThat(utc.relative(NOW + 400)).isEqualTo("now");
        assertThat(utc.relative(NOW - 45_000)).isEqualTo("45s ago");
        assertThat(utc.relative(NOW + 3 * 86_400_000L)).isEqualTo("in 3d");
        assertThat(new HumanTime(NOW, ZoneId.of("Europe/Berlin")).local(NOW)).isEqualTo("2026-12-02T02:00:00");
        assertThat(utc.since(NOW - 312_000)).isEqualTo("5m 12s");
        assertThat(utc.since(NOW + 1_000)).isEqualTo("-");
    }

    @Test
    void reasonTextsGetTheirEpochTimesAndRuntimesRenderedForDisplay() {
        assertThat(utc.text("needs 4 GPUs; reserved to start by " + (NOW + 120_000) + " on [v0]"))
                .isEqualTo("needs 4 GPUs; reserved to start by 2026-12-02T01:02:00 (in 2m) on [v0]");
        final long deadline = Instant.parse("2020-01-01T00:00:00Z").toEpochMilli();
        assertThat(utc.text("deadline " + deadline + " cannot be met: now " + NOW + " + estimated runtime 21861 ends at "
                + (NOW + 21_861)))
                .isEqualTo("deadline 2020-01-01T00:00:00 (6y ago) cannot be met: now 2026-12-02T01:00:00 (now) + estimated "
                        + "runtime 21.9s ends at 2026-12-02T01:00:21 (in 21s)");
        // GPU counts, scores, sizes and ids are not times
        assertThat(utc.text("best leaf has 1 node with 8 free; score 0.1234567890123; job j-1796109831")).isEqualTo(
                "best leaf has 1 node with 8 free; score 0.1234567890123; job j-1796109831");
        assertThat(utc.text("")).isEmpty();
    }

    @Test
    void evidenceNamedMsIsAMomentOrADuration() {
        assertThat(utc.evidence("reserved_start_ms", Long.toString(NOW - 60_000))).isEqualTo("2026-12-02T00:59:00 (1m ago)");
        assertThat(utc.evidence("estimate_ms", "3600000")).isEqualTo("1h");
        assertThat(utc.evidence("reserved_nodes", "v0,v1")).isEqualTo("v0,v1");
        assertThat(utc.evidence("cap_gpus", "8")).isEqualTo("8");
    }
}
