from treebound.cli.main import app

app(prog_name="treebound")
