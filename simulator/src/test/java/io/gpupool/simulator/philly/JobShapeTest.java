package io.gpupool.simulator.philly;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class JobShapeTest {

    @Test
    void consolidatesLikeHelios() {
        assertThat(JobShape.of(1, 8)).isEqualTo(new JobShape(1, 1));
        assertThat(JobShape.of(8, 8)).isEqualTo(new JobShape(1, 8));
        assertThat(JobShape.of(32, 8)).isEqualTo(new JobShape(4, 8));
        assertThat(JobShape.of(12, 8)).isEqualTo(new JobShape(2, 6));
        assertThat(JobShape.of(24, 8)).isEqualTo(new JobShape(3, 8));
        assertThat(JobShape.of(13, 8)).isEqualTo(new JobShape(13, 1));
        for (int gpus = 1; gpus <= 200; gpus++) {
            final JobShape shape = JobShape.of(gpus, 8);
            assertThat(shape.nodes() * shape.gpusPerNode()).isEqualTo(gpus);
            assertThat(shape.gpusPerNode()).isBetween(1, 8);
        }
        assertThatThrownBy(() -> JobShape.of(0, 8)).isInstanceOf(IllegalArgumentException.class);
    }
}
