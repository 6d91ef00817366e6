package io.gpupool.scheduler.stream;

import io.gpupool.scheduler.journal.JobRequestMapper;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Instant;
import org.junit.jupiter.api.Test;

/** The wire checks on a request's times: what the engine cannot tell from its JobSpec. */
class JobRequestMapperTest {

    @Test
    void aNegativeRuntimeEstimateIsRejectedNamingTheField() {
        final String why = JobRequestMapper.invalid(Fixtures.request("p", 1, 1).setRuntimeEstimateMillis(-1L).build());
        assertTrue(why != null && why.startsWith("runtimeEstimateMillis must not be negative"), why);
        assertTrue(why.endsWith("got -1"), why);
    }

    @Test
    void aDeadlineAtOrBeforeTheEpochIsRejectedNotDroppedAsNone() {
        for (final long ms : new long[] {0, -1, Long.MIN_VALUE / 1_000_000}) {
            final String why = JobRequestMapper.invalid(
                    Fixtures.request("p", 1, 1).setDeadline(Instant.ofEpochMilli(ms)).build());
            assertTrue(why != null && why.contains("is not after 1970-01-01T00:00:00Z"), ms + ": " + why);
        }
    }

    @Test
    void extremeButValidTimesPassAndReachTheSpecUnchanged() {
        final var r = Fixtures.request("p", 1, 1).setRuntimeEstimateMillis(Long.MAX_VALUE)
                .setDeadline(Instant.ofEpochMilli(1)).build();
        assertNull(JobRequestMapper.invalid(r));
        final var spec = JobRequestMapper.toSpec("j", r);
        assertEquals(Long.MAX_VALUE, spec.runtimeEstimateMs());
        assertEquals(1, spec.deadlineMs());
        assertNull(JobRequestMapper.invalid(Fixtures.request("p", 1, 1).setRuntimeEstimateMillis(0L).build()),
                "0 is the engine's 'none given', as null is");
    }
}
