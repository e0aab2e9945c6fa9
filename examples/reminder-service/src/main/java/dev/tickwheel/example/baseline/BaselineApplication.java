package dev.tickwheel.example.baseline;

import dev.tickwheel.spring.TickwheelAutoConfiguration;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * The reminder service's application without Tickwheel: the same jar, starters, properties, DataSource and Flyway
 * migration, none of the reminder beans and the starter's auto-configuration excluded. Only for the start-up and
 * idle-heap figures (examples/reminder-service/measure-startup.sh), which compare the two.
 */
@SpringBootApplication(exclude = TickwheelAutoConfiguration.class)
public class BaselineApplication {

    public static void main(String[] args) {
        SpringApplication.run(BaselineApplication.class, args);
    }
}
