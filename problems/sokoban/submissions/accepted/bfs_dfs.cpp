// BFS on the box with visit[x][y][dir], DFS to check that the pusher can reach the pushing side.
#include <cstdio>
#include <cstring>
#include <queue>
using namespace std;

int n, m, g[8][8];
bool vis[8][8][4], reach[8][8];
int dx[4] = {-1, 1, 0, 0}, dy[4] = {0, 0, -1, 1};
struct Node { int bx, by, px, py, step; };

bool in(int x, int y) { return x >= 0 && x < n && y >= 0 && y < m && g[x][y] != 1; }

void dfs(int x, int y, int bx, int by) {
    reach[x][y] = true;
    for (int i = 0; i < 4; i++) {
        int nx = x + dx[i], ny = y + dy[i];
        if (in(nx, ny) && !reach[nx][ny] && !(nx == bx && ny == by)) dfs(nx, ny, bx, by);
    }
}

int bfs(int sx, int sy, int px, int py) {
    memset(vis, 0, sizeof vis);
    queue<Node> q;
    q.push({sx, sy, px, py, 0});
    while (!q.empty()) {
        Node cur = q.front(); q.pop();
        if (g[cur.bx][cur.by] == 3) return cur.step;
        memset(reach, 0, sizeof reach);
        dfs(cur.px, cur.py, cur.bx, cur.by);
        for (int i = 0; i < 4; i++) {
            int nx = cur.bx + dx[i], ny = cur.by + dy[i];
            int mx = cur.bx - dx[i], my = cur.by - dy[i];
            if (!in(nx, ny) || !in(mx, my) || !reach[mx][my] || vis[nx][ny][i]) continue;
            vis[nx][ny][i] = true;
            q.push({nx, ny, cur.bx, cur.by, cur.step + 1});
        }
    }
    return -1;
}

int main() {
    int T;
    scanf("%d", &T);
    while (T--) {
        scanf("%d %d", &n, &m);
        int sx = 0, sy = 0, px = 0, py = 0;
        for (int i = 0; i < n; i++)
            for (int j = 0; j < m; j++) {
                scanf("%d", &g[i][j]);
                if (g[i][j] == 2) sx = i, sy = j;
                if (g[i][j] == 4) px = i, py = j;
            }
        printf("%d\n", bfs(sx, sy, px, py));
    }
    return 0;
}
