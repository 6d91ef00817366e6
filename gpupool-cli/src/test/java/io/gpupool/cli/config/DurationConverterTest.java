package io.gpupool.cli.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class DurationConverterTest {

    @Test
    void readsShortFormsAndIso() {
        assertThat(DurationConverter.parse("500ms")).isEqualTo(Duration.ofMillis(500));
        assertThat(DurationConverter.parse("30s")).isEqualTo(Duration.ofSeconds(30));
        assertThat(DurationConverter.parse("5m")).isEqualTo(Duration.ofMinutes(5));
        assertThat(DurationConverter.parse("2h")).isEqualTo(Duration.ofHours(2));
        assertThat(DurationConverter.parse("1d")).isEqualTo(Duration.ofDays(1));
        assertThat(DurationConverter.parse(" 20S ")).isEqualTo(Duration.ofSeconds(20));
        assertThat(DurationConverter.parse("PT1M30S")).isEqualTo(Duration.ofSeconds(90));
    }

    @Test
    void rejectsWhatItCannotRead() {
        for (final String bad : new String[] {"", "5", "5 minutes", "-3s", "1.5s", "s"}) {
            assertThatThrownBy(() -> DurationConverter.parse(bad))
                    .as(bad).isInstanceOf(CommandLine.TypeConversionException.class).hasMessageContaining("e.g. 500ms, 30s");
        }
    }
}
