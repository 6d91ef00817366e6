# The gpupool command in a container: collector, scheduler, sink, topics (docker-compose.yml).
# Stage 1 builds the runnable jar with Maven; stage 2 runs it on a JRE.
# The 20 ms pause-time goal is the gpupool script's for the commands that run a scheduler (see there).
FROM maven:3.9-eclipse-temurin-17 AS build
WORKDIR /src
COPY . .
RUN mvn -B -q -DskipTests -pl gpupool-cli -am package

FROM eclipse-temurin:17-jre
# curl for the compose health checks.
RUN apt-get update \
 && apt-get install -y --no-install-recommends curl \
 && rm -rf /var/lib/apt/lists/* \
 && useradd --system --create-home --home-dir /var/lib/gpupool gpupool
COPY --from=build /src/gpupool-cli/target/gpupool.jar /opt/gpupool/gpupool.jar
USER gpupool
WORKDIR /var/lib/gpupool
ENTRYPOINT ["java", "-XX:MaxRAMPercentage=75", "-XX:MaxGCPauseMillis=20", "-jar", "/opt/gpupool/gpupool.jar"]
CMD ["--help"]
