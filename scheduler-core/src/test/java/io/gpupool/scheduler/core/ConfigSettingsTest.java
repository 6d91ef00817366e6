package io.gpupool.scheduler.core;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/** The settings round trip the journal and snapshots rely on: fromSettings(toSettings(c)) is c, for any config. */
class ConfigSettingsTest {

    @Test
    void generatedConfigsSurviveTheRoundTrip() {
        final SplittableRandom r = new SplittableRandom(16);
        for (int i = 0; i < 2_000; i++) {
            final EngineConfig c = generated(r, i);
            assertEquals(c, EngineConfig.fromSettings(c.toSettings()), c.toString());
        }
    }

    @Test
    void everyKeyIsWrittenSoADefaultChangedLaterDoesNotChangeTheConfig() {
        final Map<String, String> s = EngineConfig.defaults("p").toSettings();
        assertEquals(26, s.size(), s.toString());
        assertEquals("best-fit", s.get("policy"));
        assertEquals("48,63,64,74,79,92,94,95,119,120", s.get("critical-xids"));
        assertEquals("0.0", s.get("best-fit-cpu-weight"));
        assertEquals("", s.get("failpoint.allocate"));
    }

    /** Double.toString wrote 2.0E-3 as "0.0020" before JDK 19; the settings' form is the same in every JDK. */
    @Test
    void numbersAreWrittenTheSameWayInEveryJdk() {
        final EngineConfig c = EngineConfig.fromSettings(Map.of("best-fit-cpu-weight", "2.0E-3", "tenant.a.weight", "0.3"));
        assertEquals(List.of("0.002", "0.3"), List.of(c.toSettings().get("best-fit-cpu-weight"),
                c.toSettings().get("tenant.a.weight")));
    }

    private static EngineConfig generated(final SplittableRandom r, final int i) {
        final TreeSet<Integer> xids = new TreeSet<>();
        for (int x = r.nextInt(4); x > 0; x--) {
            xids.add(r.nextInt(1, 200));
        }
        final Map<String, TenantConfig> tenants = new TreeMap<>();
        for (int t = r.nextInt(4); t > 0; t--) {
            tenants.put("team" + r.nextInt(10) + (r.nextBoolean() ? ".sub" : ""), new TenantConfig(r.nextInt(64),
                    r.nextBoolean() ? r.nextInt(1, 5) : r.nextDouble() * 10 + 1e-9,
                    r.nextBoolean() ? Integer.MAX_VALUE : r.nextInt(512)));
        }
        final ScoringPolicy[] policies = ScoringPolicy.values();
        return new EngineConfig("pool-" + i, policies[r.nextInt(policies.length)], r.nextLong(0, 1_000_000),
                r.nextInt(50, 110), r.nextBoolean(), xids, r.nextInt(101), r.nextInt(100_000), r.nextInt(1, 5_000),
                r.nextBoolean(), r.nextBoolean(), r.nextInt(10), r.nextLong(1, Long.MAX_VALUE), r.nextLong(1, Long.MAX_VALUE),
                tenants, r.nextBoolean() ? 0.0 : r.nextDouble(), r.nextLong(), r.nextBoolean(), r.nextInt(1, 101),
                r.nextBoolean(), r.nextLong(0, 10_000_000), r.nextLong(1, 10_000_000), r.nextInt(100), r.nextInt(1, 101),
                r.nextLong(0, Long.MAX_VALUE), r.nextBoolean() ? Failpoint.NONE : new Failpoint("job-" + r.nextInt(9), r.nextInt(3)),
                r.nextInt(0, 1_000_000));
    }
}
