// A class of its own file, used by Solve: the compiler gets every .java file.
class Adder {
    private long total = 0;

    void add(long x) {
        total += x;
    }

    long total() {
        return total;
    }
}
