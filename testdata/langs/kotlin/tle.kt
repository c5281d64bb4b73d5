// Time limit exceeded: spins forever.
@Volatile var sink = 0L

fun main() {
    var i = 0L
    while (true) { sink = i; i++ }
}
