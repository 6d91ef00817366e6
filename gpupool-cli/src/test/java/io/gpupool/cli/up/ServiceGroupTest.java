package io.gpupool.cli.up;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gpupool.localstack.LocalStackSettings;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ServiceGroupTest {

    private final List<String> events = new ArrayList<>();
    private final UpContext context = new UpContext(LocalStackSettings.defaults(Path.of("unused")), Map.of(),
            new PrintWriter(new StringWriter()));

    private UpService service(final String name, final boolean failsToStart) {
        return new UpService() {
            @Override
            public String name() {
                return name;
            }

            @Override
            public AutoCloseable start(final UpContext ignored) {
                if (failsToStart) {
                    events.add("fail " + name);
                    throw new IllegalStateException(name + " is broken");
                }
                events.add("start " + name);
                return () -> events.add("stop " + name);
            }
        };
    }

    @Test
    void startsInOrderAndStopsInReverse() throws Exception {
        final ServiceGroup group = new ServiceGroup(List.of(service("broker", false), service("scheduler", false), service("sink", false)));
        group.start(context);
        assertThat(group.running()).containsExactly("broker", "scheduler", "sink");
        group.close();
        assertThat(events).containsExactly("start broker", "start scheduler", "start sink", "stop sink", "stop scheduler", "stop broker");
        assertThat(group.running()).isEmpty();
    }

    @Test
    void aFailedStartStopsWhatHadStartedAndNamesTheCulprit() {
        final ServiceGroup group = new ServiceGroup(List.of(service("broker", false), service("scheduler", true), service("sink", false)));
        assertThatThrownBy(() -> group.start(context)).hasMessage("scheduler failed to start: scheduler is broken");
        assertThat(events).containsExactly("start broker", "fail scheduler", "stop broker");
    }

    @Test
    void oneServiceFailingToStopDoesNotKeepTheOthersRunning() throws Exception {
        final UpService stubborn = new UpService() {
            @Override
            public String name() {
                return "stubborn";
            }

            @Override
            public AutoCloseable start(final UpContext ignored) {
                return () -> {
                    throw new IllegalStateException("will not stop");
                };
            }
        };
        final ServiceGroup group = new ServiceGroup(List.of(service("broker", false), stubborn));
        group.start(context);
        assertThatThrownBy(group::close).hasMessageContaining("stubborn: will not stop");
        assertThat(events).containsExactly("start broker", "stop broker");
    }

    @Test
    void laterServicesCannotRunBeforeTheStack() {
        assertThatThrownBy(context::bootstrapServers).hasMessageContaining("must be first");
    }
}
