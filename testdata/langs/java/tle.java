// Time limit exceeded: spins forever (the JIT cannot remove the loop: it writes a volatile).
public class Main {
    static volatile long sink;

    public static void main(String[] args) {
        for (long i = 0; ; i++) sink = i;
    }
}
